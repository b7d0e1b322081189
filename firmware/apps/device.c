/* The part every device application shares: see device.h. */
#include "device.h"

#include <string.h>

#include "platform.h"

fw_flash g_flash;
fw_link g_link;
static uint32_t g_now;
static bool g_button; /* the pairing button */

void txt_put(char *out, size_t cap, const char *s) {
    size_t n = strlen(out);
    while (*s && n + 1 < cap) out[n++] = *s++;
    out[n] = 0;
}

void txt_uint(char *out, size_t cap, uint32_t v) {
    char d[11];
    int k = 0;
    do {
        d[k++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    char s[11];
    int j = 0;
    while (k) s[j++] = d[--k];
    s[j] = 0;
    txt_put(out, cap, s);
}

bool txt_num(const char **s, long *v) {
    const char *p = *s;
    while (*p == ' ') p++;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    if (*p < '0' || *p > '9') return false;
    long x = 0;
    while (*p >= '0' && *p <= '9') {
        if (x > 100000000L) return false;
        x = x * 10 + (*p++ - '0');
    }
    if (*p && *p != ' ') return false;
    *v = neg ? -x : x;
    *s = p;
    return true;
}

bool txt_word(const char **s, char *w, size_t cap) {
    const char *p = *s;
    while (*p == ' ') p++;
    size_t n = 0;
    while (*p && *p != ' ') {
        if (n + 1 >= cap) return false;
        w[n++] = *p++;
    }
    w[n] = 0;
    *s = p;
    return n > 0;
}

uint32_t dev_now(void) { return g_now; }

void dev_save(void) { plat_flash_write(&g_flash, sizeof g_flash); }

bool dev_report(uint8_t type, const uint8_t *p, size_t n) {
    return fw_link_send(&g_link, type, p, n, g_now);
}

/* --- the link's callbacks ------------------------------------------------------------ */

static void op_write(void *ctx, const uint8_t *d, size_t n) {
    (void)ctx;
    plat_wire_write(d, n);
}
static void op_random(void *ctx, uint8_t *b, size_t n) {
    (void)ctx;
    plat_random(b, n);
}
static bool op_message(void *ctx, uint8_t type, const uint8_t *p, size_t n, bool reliable) {
    (void)ctx;
    (void)reliable;
    return FW_APP.message(type, p, n);
}
static bool op_consent(void *ctx) {
    (void)ctx;
    return FW_APP.consent(g_button);
}
static void op_paired(void *ctx, const uint8_t secret[32], const char *station, size_t n) {
    (void)ctx;
    memcpy(g_flash.secret, secret, 32);
    g_flash.paired = 1;
    if (n > FW_MAX_TEXT) n = FW_MAX_TEXT;
    memset(g_flash.station, 0, sizeof g_flash.station);
    memcpy(g_flash.station, station, n);
    dev_save();
}

static const fw_link_ops OPS = {op_write, op_random, op_message, op_consent, op_paired};

void dev_boot(const char *serial, const char *firmware, const fw_timing *t, uint32_t now) {
    g_now = now;
    bool erased = !plat_flash_read(&g_flash, sizeof g_flash) || g_flash.magic != FW_FLASH_MAGIC ||
                  g_flash.layout != FW_FLASH_LAYOUT;
    if (erased) {
        memset(&g_flash, 0, sizeof g_flash);
        g_flash.magic = FW_FLASH_MAGIC;
        g_flash.layout = FW_FLASH_LAYOUT;
        strncpy(g_flash.serial, serial, FW_MAX_TEXT);
        strncpy(g_flash.firmware, firmware, FW_MAX_TEXT);
    }
    g_flash.serial[FW_MAX_TEXT] = g_flash.firmware[FW_MAX_TEXT] = 0;
    g_flash.station[FW_MAX_TEXT] = 0;
    FW_APP.boot(erased);
    if (erased) dev_save();
    fw_link_init(&g_link, FW_APP.kind, g_flash.firmware, g_flash.serial, t, &OPS, NULL,
                 g_flash.paired ? g_flash.secret : NULL, now);
}

void dev_wire(const uint8_t *data, size_t n, uint32_t now) {
    g_now = now;
    fw_link_rx(&g_link, data, n, now);
}

void dev_tick(uint32_t now) {
    g_now = now;
    fw_link_tick(&g_link, now);
}

uint32_t dev_wait(uint32_t now) { return fw_link_wait(&g_link, now); }

static void status(char *out, size_t cap) {
    const fw_link *l = &g_link;
    const fw_stats *s = &l->stats;
    struct {
        const char *name;
        uint32_t value;
    } items[] = {
        {"connected", fw_link_connected(l)}, {"unconfirmed", fw_link_unconfirmed(l)},
        {"sessions", s->sessions},           {"paired", g_flash.paired},
        {"refused", l->state == FW_REFUSED}, {"auth_failures", s->auth_failures},
        {"dropped", s->dropped},             {"rejected", s->rejected},
        {"forged_ends", s->forged_ends},     {"retransmits", s->retransmits},
        {"heartbeat_requests", s->heartbeat_requests}, {"pairing_button", g_button},
        {"frames_received", s->frames_received}, {"frames_sent", s->frames_sent},
        {"refusals", s->refusals}, {"next_seq", (uint8_t)(l->base_seq + l->inflight)},
        {"pending", l->pending},
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        txt_put(out, cap, " ");
        txt_put(out, cap, items[i].name);
        txt_put(out, cap, "=");
        txt_uint(out, cap, items[i].value);
    }
    txt_put(out, cap, " serial=");
    txt_put(out, cap, g_flash.serial);
    txt_put(out, cap, " firmware=");
    txt_put(out, cap, g_flash.firmware);
    txt_put(out, cap, " station=");
    txt_put(out, cap, g_flash.paired ? g_flash.station : "-");
    FW_APP.status(out, cap);
}

/* The next word of *args (1..32 bytes) into a text field of FW_MAX_TEXT + 1 bytes. */
static bool take_text(const char **args, char dst[FW_MAX_TEXT + 1]) {
    char word[FW_MAX_TEXT + 1];
    if (!txt_word(args, word, sizeof word)) return false;
    memset(dst, 0, FW_MAX_TEXT + 1);
    memcpy(dst, word, strlen(word));
    return true;
}

void dev_control(const char *line, char *reply, size_t cap, uint32_t now) {
    g_now = now;
    char cmd[24];
    const char *args = line;
    reply[0] = 0;
    if (!txt_word(&args, cmd, sizeof cmd)) {
        txt_put(reply, cap, "err empty command");
        return;
    }
    /* static: the bench channel's buffers are not the link's stack (docs/firmware.md) */
    static char body[1024];
    body[0] = 0;
    bool ok = true;
    if (strcmp(cmd, "status") == 0) {
        status(body, sizeof body);
    } else if (strcmp(cmd, "pair_button") == 0) {
        long v;
        ok = txt_num(&args, &v) && (v == 0 || v == 1);
        if (ok) g_button = v == 1;
        else txt_put(body, sizeof body, "pair_button takes 0 or 1");
    } else if (strcmp(cmd, "deliver") == 0) {
        /* Ask the station to acknowledge at once what is queued (ACK_NOW). */
        fw_link_ack_now(&g_link);
        fw_link_tick(&g_link, now);
#ifdef FW_TEST_SWITCHES
    } else if (strcmp(cmd, "claim_serial") == 0) {
        /* An impostor's firmware: claims another serial number from the next HELLO on
         * (the flash page keeps the real one). */
        ok = take_text(&args, g_link.serial);
        if (!ok) txt_put(body, sizeof body, "claim_serial takes a text of 1..32 bytes");
    } else if (strcmp(cmd, "page") == 0) {
        /* "page OFFSET": 128 bytes of the flash page in hex; "page OFFSET HEX": write them
         * (the bench moves a board's flash to another board: the same shoe, replugged). */
        long at;
        char hex[257];
        uint8_t *page = (uint8_t *)&g_flash;
        ok = txt_num(&args, &at) && at >= 0 && (size_t)at <= sizeof g_flash;
        if (ok && txt_word(&args, hex, sizeof hex)) {
            size_t n = strlen(hex) / 2;
            for (size_t i = 0; i < n && (size_t)at + i < sizeof g_flash; i++) {
                int hi = hex[2 * i] <= '9' ? hex[2 * i] - '0' : hex[2 * i] - 'a' + 10;
                int lo = hex[2 * i + 1] <= '9' ? hex[2 * i + 1] - '0' : hex[2 * i + 1] - 'a' + 10;
                page[(size_t)at + i] = (uint8_t)((hi & 15) << 4 | (lo & 15));
            }
            dev_save();
        } else if (ok) {
            static const char digits[] = "0123456789abcdef";
            char out[257];
            size_t k = 0;
            for (size_t i = (size_t)at; i < sizeof g_flash && k < 256; i++) {
                out[k++] = digits[page[i] >> 4];
                out[k++] = digits[page[i] & 15u];
            }
            out[k] = 0;
            txt_put(body, sizeof body, out);
        } else {
            txt_put(body, sizeof body, "page OFFSET [HEX]");
        }
#endif
    } else if (strcmp(cmd, "reflash") == 0) {
        /* A new firmware version text in the flash page (takes effect at the next boot). */
        ok = take_text(&args, g_flash.firmware);
        if (ok) dev_save();
        else txt_put(body, sizeof body, "reflash takes a version text of 1..32 bytes");
    } else {
        ok = FW_APP.command(cmd, args, body, sizeof body);
    }
    txt_put(reply, cap, ok ? "ok" : "err");
    if (body[0]) {
        txt_put(reply, cap, body[0] == ' ' ? "" : " ");
        txt_put(reply, cap, body);
    }
}
