/* The smart shoe (docs/protocol.md section 7, 0x20-0x28): cards drawn with draw numbers,
 * the cover card, the shoe's loads, and the hole card withheld behind a commitment and
 * revealed on request. The batch, the counts and the withheld hole cards live in the
 * flash page: they outlive a station restart, a lost session and the shoe's own reboot. */
#include <string.h>

#include "device.h"
#include "platform.h"

enum {
    T_CARD = 0x20, T_COVER = 0x21, T_LOADED = 0x22, T_EMPTY = 0x23, T_HOLE_DEALT = 0x24,
    T_HOLE_NEXT = 0x25, T_REVEAL_REQUEST = 0x26, T_REVEAL = 0x27, T_HOLE_CANCEL = 0x28,
};
#define COVER 0xFFu
#define MAX_CARDS 420u /* 8 decks of 52 and the cover card, with room */
#define HELD 4u        /* hole cards kept (docs/protocol.md: at least the last 4) */

typedef struct {
    uint8_t commitment[32];
    uint8_t rank, suit, used, pad;
    uint8_t nonce[16];
} held_card;

typedef struct {
    uint16_t loads, draws, count, next, hole_from;
    uint8_t last_rank, last_suit;
    uint16_t last_draw;
    uint8_t held_next, pad;
    held_card held[HELD];
    uint8_t cards[MAX_CARDS]; /* rank << 2 | suit index, or COVER */
} shoe_state;

_Static_assert(sizeof(shoe_state) <= sizeof(((fw_flash *)0)->app_state), "shoe state fits");

#ifdef FW_TEST_SWITCHES
static uint8_t g_lie_rank, g_lie_suit;
#endif

static shoe_state *S(void) { return (shoe_state *)(void *)g_flash.app_state; }
static const char SUITS[] = "SHDC";
static const char RANKS[] = "?A23456789TJQK";

static bool report(uint8_t type, const uint8_t *p, size_t n) { return dev_report(type, p, n); }

static void report_draw(uint8_t type, uint16_t draw) {
    uint8_t p[2];
    fw_put16(p, draw);
    report(type, p, 2);
}

static void card_text(uint8_t rank, uint8_t suit, char out[4]) {
    /* As controller/rules/cards.py writes a card: A, 2..9, J, Q, K then the suit. */
    size_t k = 0;
    if (rank == 10) {
        out[k++] = '1';
        out[k++] = '0';
    } else {
        out[k++] = RANKS[rank];
    }
    out[k++] = (char)suit;
    out[k] = 0;
}

static void report_card(uint8_t rank, uint8_t suit, uint16_t draw) {
    uint8_t p[4] = {rank, suit, 0, 0};
    fw_put16(p + 2, draw);
    S()->last_rank = rank;
    S()->last_suit = suit;
    S()->last_draw = draw;
    report(T_CARD, p, 4);
}

static void withhold(uint8_t rank, uint8_t suit, uint16_t draw) {
    /* commitment = SHA-256("CARD|NONCE"), the nonce as 32 lowercase hex digits */
    shoe_state *s = S();
    held_card *h = &s->held[s->held_next];
    s->held_next = (uint8_t)((s->held_next + 1u) % HELD);
    plat_random(h->nonce, 16);
    char text[4 + 1 + 32];
    card_text(rank, suit, text);
    size_t k = strlen(text);
    text[k++] = '|';
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < 16; i++) {
        text[k++] = hex[h->nonce[i] >> 4];
        text[k++] = hex[h->nonce[i] & 15u];
    }
    fw_sha256((const uint8_t *)text, k, h->commitment);
    h->rank = rank;
    h->suit = suit;
    h->used = 1;
    uint8_t p[34];
    fw_put16(p, draw);
    memcpy(p + 2, h->commitment, 32);
    dev_save();
    report(T_HOLE_DEALT, p, 34);
}

bool shoe_message(uint8_t type, const uint8_t *p, size_t n) {
    shoe_state *s = S();
    switch (type) {
    case T_HOLE_NEXT: {
        if (n != 2) return false;
        uint16_t draw = fw_get16(p);
        if (draw == 0) return false;
        if (draw > s->draws) { /* never a draw already past */
            s->hole_from = draw;
            dev_save();
        }
        return true;
    }
    case T_HOLE_CANCEL:
        if (n != 0) return false;
        s->hole_from = 0;
        dev_save();
        return true;
    case T_REVEAL_REQUEST: {
        if (n != 32) return false;
        uint8_t r[50];
        memcpy(r, p, 32);
        r[32] = 0;
        r[33] = 'S';
        memset(r + 34, 0, 16);
        for (unsigned i = 0; i < HELD; i++) {
            const held_card *h = &s->held[i];
            if (h->used && fw_equal(h->commitment, p, 32)) {
                r[32] = h->rank;
                r[33] = h->suit;
                memcpy(r + 34, h->nonce, 16);
                break;
            }
        }
#ifdef FW_TEST_SWITCHES
        if (g_lie_rank) { /* a tampered shoe (a test switch of the host build) */
            r[32] = g_lie_rank;
            r[33] = g_lie_suit;
        }
#endif
        report(T_REVEAL, r, 50);
        return true;
    }
    default:
        return false; /* not a message a station sends a shoe */
    }
}

static bool parse_card(const char *w, uint8_t *code) {
    size_t n = strlen(w);
    if (n < 2 || n > 3) return false;
    char suit = w[n - 1];
    const char *sp = strchr(SUITS, suit);
    if (!sp || !suit) return false;
    uint8_t rank = 0;
    if (n == 3) {
        if (w[0] != '1' || w[1] != '0') return false;
        rank = 10;
    } else {
        const char *rp = strchr(RANKS + 1, w[0]);
        if (!rp || !w[0]) return false;
        rank = (uint8_t)(rp - RANKS);
    }
    *code = (uint8_t)(rank << 2 | (uint8_t)(sp - SUITS));
    return true;
}

/* "load COVER_AT CARD..." / "restock ...": COVER_AT -1 for none. */
static bool fill(const char *args, bool announce, char *reply, size_t cap) {
    shoe_state *s = S();
    long cover;
    if (!txt_num(&args, &cover) || cover < -1 || cover > (long)MAX_CARDS - 1) {
        txt_put(reply, cap, "load: COVER_AT (-1 for none) then the cards");
        return false;
    }
    uint8_t cards[MAX_CARDS];
    size_t n = 0;
    char w[8];
    while (txt_word(&args, w, sizeof w)) {
        if (n + 1 >= MAX_CARDS || !parse_card(w, &cards[n])) {
            txt_put(reply, cap, "load: not a card or too many: ");
            txt_put(reply, cap, w);
            return false;
        }
        n++;
    }
    if (cover > (long)n) {
        txt_put(reply, cap, "load: cover card position past the last card");
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i <= n; i++) {
        if ((long)i == cover) s->cards[k++] = COVER;
        if (i < n) s->cards[k++] = cards[i];
    }
    s->count = (uint16_t)k;
    s->next = 0;
    s->draws = 0;
    s->hole_from = 0; /* draw numbers start again: an old HoleCardNext means nothing */
    s->last_rank = 0;
    if (announce) {
        s->loads = (uint16_t)(s->loads + 1u);
        memset(s->held, 0, sizeof s->held); /* the last batch's hole cards are gone */
        s->held_next = 0;
    }
    dev_save();
    if (announce) report_draw(T_LOADED, s->loads);
    return true;
}

static void deal(bool hole, char *reply, size_t cap) {
    shoe_state *s = S();
    if (s->next >= s->count) {
        txt_put(reply, cap, "none");
        return;
    }
    uint8_t code = s->cards[s->next++];
    uint16_t draw = ++s->draws;
    bool empty = s->next >= s->count;
    if (code == COVER) {
        dev_save();
        report_draw(T_COVER, draw);
        txt_put(reply, cap, "cover");
    } else {
        uint8_t rank = code >> 2, suit = (uint8_t)SUITS[code & 3u];
        bool armed = s->hole_from != 0 && draw >= s->hole_from;
        char text[4];
        card_text(rank, suit, text);
        txt_put(reply, cap, text);
        if (hole || armed) {
            s->hole_from = 0;
            withhold(rank, suit, draw);
        } else {
            dev_save();
            report_card(rank, suit, draw);
        }
    }
    if (empty) report_draw(T_EMPTY, draw);
}

bool shoe_command(const char *cmd, const char *args, char *reply, size_t cap) {
    shoe_state *s = S();
    if (strcmp(cmd, "load") == 0) return fill(args, true, reply, cap);
    if (strcmp(cmd, "restock") == 0) return fill(args, false, reply, cap);
    if (strcmp(cmd, "deal") == 0) {
        char w[8];
        bool hole = txt_word(&args, w, sizeof w) && strcmp(w, "hole") == 0;
        deal(hole, reply, cap);
        return true;
    }
    if (strcmp(cmd, "count") == 0) { /* "count LOAD DRAWS": the counts a restocked shoe kept */
        long load, draws;
        if (!txt_num(&args, &load) || load < -1 || load > 65535 || !txt_num(&args, &draws) ||
            draws < 0 || draws > 65535) {
            txt_put(reply, cap, "count: LOAD (0..65535, -1 kept) then DRAWS (0..65535)");
            return false;
        }
        if (load >= 0) s->loads = (uint16_t)load;
        s->draws = (uint16_t)draws;
        dev_save();
        return true;
    }
    if (strcmp(cmd, "code") == 0) { /* a card from outside the batch: the next draw */
        long rank;
        char suit[4];
        if (!txt_num(&args, &rank) || rank < 0 || rank > 255 || !txt_word(&args, suit, 4) ||
            strlen(suit) != 1) {
            txt_put(reply, cap, "code: RANK SUIT");
            return false;
        }
        uint16_t draw = ++s->draws;
        dev_save();
        report_card((uint8_t)rank, (uint8_t)suit[0], draw);
        return true;
    }
    if (strcmp(cmd, "repeat") == 0) { /* a double read of the sensor: the same number */
        if (!s->last_rank) {
            txt_put(reply, cap, "no card dealt yet");
            return false;
        }
        report_card(s->last_rank, s->last_suit, s->last_draw);
        return true;
    }
#ifdef FW_TEST_SWITCHES
    if (strcmp(cmd, "lie") == 0) { /* "lie RANK SUIT": reveal that card; "lie 0 S": stop */
        long rank;
        char suit[4];
        if (!txt_num(&args, &rank) || rank < 0 || rank > 13 || !txt_word(&args, suit, 4) ||
            strlen(suit) != 1) {
            txt_put(reply, cap, "lie: RANK SUIT (0 S: tell the truth)");
            return false;
        }
        g_lie_rank = (uint8_t)rank;
        g_lie_suit = (uint8_t)suit[0];
        return true;
    }
    if (strcmp(cmd, "held") == 0) { /* the bench's look into the shoe's memory */
        static const char hex[] = "0123456789abcdef";
        for (unsigned i = 0; i < HELD; i++) {
            const held_card *h = &s->held[i];
            if (!h->used) continue;
            char item[2 + 64 + 1 + 3 + 1 + 32 + 1];
            size_t k = 0;
            item[k++] = ' ';
            for (unsigned j = 0; j < 32; j++) {
                item[k++] = hex[h->commitment[j] >> 4];
                item[k++] = hex[h->commitment[j] & 15u];
            }
            item[k++] = ':';
            char text[4];
            card_text(h->rank, h->suit, text);
            for (const char *c = text; *c; c++) item[k++] = *c;
            item[k++] = ':';
            for (unsigned j = 0; j < 16; j++) {
                item[k++] = hex[h->nonce[j] >> 4];
                item[k++] = hex[h->nonce[j] & 15u];
            }
            item[k] = 0;
            txt_put(reply, cap, item);
        }
        return true;
    }
#endif
    txt_put(reply, cap, "unknown command ");
    txt_put(reply, cap, cmd);
    return false;
}

void shoe_status(char *out, size_t cap) {
    const shoe_state *s = S();
    txt_put(out, cap, " draws=");
    txt_uint(out, cap, s->draws);
    txt_put(out, cap, " remaining=");
    txt_uint(out, cap, (uint32_t)(s->count - s->next));
    txt_put(out, cap, " loads=");
    txt_uint(out, cap, s->loads);
    txt_put(out, cap, " hole_from=");
    txt_uint(out, cap, s->hole_from);
}

bool shoe_consent(bool button) { return button; }

void shoe_boot(bool erased) {
    if (erased) memset(S(), 0, sizeof(shoe_state));
}

#ifndef FW_FUZZ /* the fuzz harness links both applications' decoders */
const fw_app FW_APP = {FW_KIND_SHOE, sizeof(shoe_state), shoe_message, shoe_command, shoe_status,
                       shoe_consent, shoe_boot};
#endif
