/* The device side of a link: docs/protocol.md sections 4, 4a, 4b, 5, 6 and 6a. */
#include "fw_link.h"

#include <string.h>

const fw_timing FW_DEFAULT_TIMING = {100u, 1000u, 3500u, 10u, 5u, 8u, 4u};

static const char LINK_INFO[] = "dealer-station link v2 ";
static const char PAIRING_INFO[] = "dealer-station pairing v2 ";

enum { REFUSE_VERSION = 1, REFUSE_KIND, REFUSE_UNPAIRED };

/* --- small helpers ------------------------------------------------------------------- */

static bool due(uint32_t now, uint32_t at) { return (int32_t)(now - at) >= 0; }

typedef struct {
    char *p;
    size_t n, cap;
} text;

static void put(text *t, const char *s) {
    while (*s && t->n < t->cap) t->p[t->n++] = *s++;
}

static void put_uint(text *t, unsigned v) {
    char digits[10];
    int k = 0;
    do {
        digits[k++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v && k < 10);
    while (k && t->n < t->cap) t->p[t->n++] = digits[--k];
}

const char *fw_kind_name(uint8_t kind) {
    switch (kind) {
    case FW_KIND_SHUFFLER: return "shuffler";
    case FW_KIND_SHOE: return "shoe";
    case FW_KIND_CARD_READER: return "card_reader";
    case FW_KIND_PANEL: return "panel";
    default: return "unknown";
    }
}

static size_t put_text(uint8_t *p, const char *s) {
    size_t n = strlen(s);
    p[0] = (uint8_t)n;
    memcpy(p + 1, s, n);
    return n + 1;
}

/* A text field at p[*at] (u8 length + bytes, at most max): advances *at. */
static bool take_text(const uint8_t *p, size_t n, size_t *at, size_t max) {
    if (*at >= n) return false;
    size_t len = p[*at];
    if (len > max || *at + 1 + len > n) return false;
    *at += 1 + len;
    return true;
}

/* --- keys and seals ------------------------------------------------------------------ */

void fw_session_keys(const uint8_t secret[32], const uint8_t ns[16], const uint8_t nd[16],
                     uint8_t kind, uint8_t s2d[32], uint8_t d2s[32]) {
    uint8_t salt[32], info[sizeof LINK_INFO], okm[64];
    memcpy(salt, ns, 16);
    memcpy(salt + 16, nd, 16);
    memcpy(info, LINK_INFO, sizeof LINK_INFO - 1);
    info[sizeof LINK_INFO - 1] = kind;
    fw_hkdf_sha256(secret, 32, salt, 32, info, sizeof info, okm, 64);
    memcpy(s2d, okm, 32);
    memcpy(d2s, okm + 32, 32);
    fw_wipe(okm, sizeof okm);
}

bool fw_pairing_secret(const uint8_t priv[32], const uint8_t peer_pub[32],
                       const uint8_t station_pub[32], const uint8_t device_pub[32], uint8_t kind,
                       const char *serial, size_t serial_len, uint8_t out[32]) {
    uint8_t shared[32];
    if (serial_len > FW_MAX_TEXT || !fw_x25519_shared(shared, priv, peer_pub)) {
        fw_wipe(shared, sizeof shared);
        return false;
    }
    /* HKDF-SHA256(X25519, salt = Ps | Pd, info = "dealer-station pairing v2 " | kind | serial) */
    uint8_t salt[64], info[sizeof PAIRING_INFO + FW_MAX_TEXT];
    memcpy(salt, station_pub, 32);
    memcpy(salt + 32, device_pub, 32);
    size_t k = sizeof PAIRING_INFO - 1;
    memcpy(info, PAIRING_INFO, k);
    info[k++] = kind;
    memcpy(info + k, serial, serial_len);
    k += serial_len;
    fw_hkdf_sha256(shared, 32, salt, 64, info, k, out, 32);
    fw_wipe(shared, sizeof shared);
    return true;
}

size_t fw_seal(const uint8_t key[32], uint32_t counter, const uint8_t header[FW_HEADER],
               const uint8_t *msg, size_t n, uint8_t *body) {
    fw_put32(body, counter);
    fw_aead_seal(key, counter, header, FW_HEADER, msg, n, body + 4, body + 4 + n);
    return n + FW_SEAL_OVERHEAD;
}

bool fw_unseal(const uint8_t key[32], uint32_t *last, const uint8_t header[FW_HEADER],
               const uint8_t *body, size_t body_len, uint8_t *msg, size_t *n) {
    if (body_len < FW_SEAL_OVERHEAD) return false;
    uint32_t counter = fw_get32(body);
    size_t len = body_len - FW_SEAL_OVERHEAD;
    if (counter <= *last) return false; /* a replay within the session */
    if (!fw_aead_open(key, counter, header, FW_HEADER, body + 4, len, body + 4 + len, msg))
        return false;
    *last = counter;
    *n = len;
    return true;
}

/* --- writing frames ------------------------------------------------------------------ */

static void write_frame(fw_link *l, uint8_t type, uint8_t seq, uint8_t flags, uint8_t ack,
                        const uint8_t *payload, size_t n) {
    uint8_t wire[FW_WIRE_MAX];
    fw_header h = {FW_VERSION, type, seq, flags, ack};
    size_t len = fw_frame_wire(&h, payload, n, l->lead, wire);
    l->lead = false;
    l->ops->write(l->ctx, wire, len);
    l->stats.frames_sent++;
    l->last_tx = l->now;
}

static void plain(fw_link *l, uint8_t type, const uint8_t *payload, size_t n) {
    write_frame(l, type, 0, 0, 0, payload, n);
}

static void link_down(fw_link *l);

/* A sealed frame of the session; it carries the current ack, so no ACK is owed after it. */
static void sealed(fw_link *l, uint8_t type, uint8_t seq, uint8_t flags, const uint8_t *msg,
                   size_t n) {
    if (l->tx_counter == 0xFFFFFFFFu) { /* the counter would wrap: new session, new keys */
        link_down(l);
        return;
    }
    uint8_t header[FW_HEADER] = {FW_VERSION, type, seq, (uint8_t)(flags | FW_FLAG_SEALED),
                                 l->expected};
    uint8_t body[4 + FW_MAX_MESSAGE + FW_TAG];
    size_t body_len = fw_seal(l->k_tx, ++l->tx_counter, header, msg, n, body);
    l->ack_due = false;
    l->ack_owed = 0;
    write_frame(l, type, seq, header[3], header[4], body, body_len);
}

static void refused_frame(fw_link *l, uint32_t echo, const char *reason, size_t n) {
    uint8_t p[4 + 1 + 200];
    if (n > 200) n = 200;
    fw_put32(p, echo);
    p[4] = (uint8_t)n;
    memcpy(p + 5, reason, n);
    plain(l, FW_T_REFUSED, p, 5 + n);
}

/* --- the queue of reports -------------------------------------------------------------- */

static fw_msg *slot(fw_link *l, unsigned i) { return &l->queue[(l->q_head + i) % FW_QUEUE]; }

/* Send queued reports into the window, setting ACK_NOW on the last when hurried. */
static void launch(fw_link *l) {
    if (l->state != FW_CONNECTED) return;
    unsigned window = l->t.window;
    unsigned last = l->inflight;
    while (l->inflight < window && l->inflight < l->q_len) {
        fw_msg *m = slot(l, l->inflight);
        m->tries = 1;
        m->sent_at = l->now;
        bool final = l->inflight + 1u == window || l->inflight + 1u == l->q_len;
        uint8_t flags = FW_FLAG_RELIABLE;
        if (l->hurry && final) flags |= FW_FLAG_ACK_NOW;
        sealed(l, m->type, (uint8_t)(l->base_seq + l->inflight), flags, m->data, m->len);
        if (l->state != FW_CONNECTED) return;
        l->inflight++;
    }
    if (l->hurry && l->inflight == l->q_len && l->inflight != last) l->hurry = false;
}

bool fw_link_send(fw_link *l, uint8_t type, const uint8_t *payload, size_t n, uint32_t now) {
    l->now = now;
    if (n > FW_MAX_MESSAGE || l->q_len >= FW_QUEUE) return false;
    fw_msg *m = slot(l, l->q_len);
    m->type = type;
    m->len = (uint8_t)n;
    m->tries = 0;
    if (n) memcpy(m->data, payload, n);
    l->q_len++;
    launch(l);
    return true;
}

void fw_link_ack_now(fw_link *l) { l->hurry = true; }

void fw_link_clear_queue(fw_link *l) {
    l->q_len = 0;
    l->inflight = 0;
}

static void on_ack(fw_link *l, uint8_t ack) {
    if (!l->inflight) return;
    unsigned acked = (uint8_t)(ack - l->base_seq);
    if (acked == 0 || acked > l->inflight) return; /* stale or nonsense */
    l->q_head = (uint8_t)((l->q_head + acked) % FW_QUEUE);
    l->q_len = (uint8_t)(l->q_len - acked);
    l->inflight = (uint8_t)(l->inflight - acked);
    l->base_seq = (uint8_t)(l->base_seq + acked);
    launch(l);
}

/* --- sessions ---------------------------------------------------------------------------- */

static void end_session(fw_link *l) {
    /* Reports in flight go out again, first, in the next session (section 7, draw
     * numbers: the station drops what it already has). */
    l->inflight = 0;
    l->hurry = false;
    l->ack_due = false;
    fw_wipe(l->k_tx, sizeof l->k_tx);
    fw_wipe(l->k_rx, sizeof l->k_rx);
    l->state = FW_NO_SESSION;
}

static void link_down(fw_link *l) {
    l->down_session = l->peer_session;
    l->stats.link_downs++;
    end_session(l);
}

static void begin(fw_link *l) {
    end_session(l);
    l->down_session = 0;
    l->lead = true;
}

static void build_refusal(fw_link *l, uint8_t code, uint8_t arg, char *buf, size_t *n) {
    text t = {buf, 0, 200};
    switch (code) {
    case REFUSE_VERSION:
        put(&t, "protocol version ");
        put_uint(&t, arg);
        put(&t, " of the station is not supported (the device speaks version 2)");
        break;
    case REFUSE_KIND:
        put(&t, "device kind mismatch: the station expects a ");
        put(&t, fw_kind_name(arg));
        put(&t, ", the device is a ");
        put(&t, fw_kind_name(l->kind));
        break;
    default:
        put(&t, "the device is not paired with a station (dealer-station pair)");
        break;
    }
    *n = t.n;
}

static void refuse(fw_link *l, uint32_t echo) {
    char reason[200];
    size_t n;
    build_refusal(l, l->refusal_code, l->refusal_arg, reason, &n);
    refused_frame(l, echo, reason, n);
}

static void accept_hello(fw_link *l, uint32_t station_session, const uint8_t station_nonce[16]) {
    uint32_t d;
    do l->ops->random(l->ctx, (uint8_t *)&d, sizeof d);
    while (d == 0 || d == l->session);
    uint8_t nonce[16];
    l->ops->random(l->ctx, nonce, sizeof nonce);
    fw_session_keys(l->secret, station_nonce, nonce, l->kind, l->k_rx, l->k_tx);
    l->session = d;
    l->peer_session = station_session;
    l->tx_counter = 0;
    l->rx_last = 0;
    l->base_seq = 0;
    l->expected = 0;
    l->inflight = 0;
    l->ack_due = false;
    l->ack_owed = 0;
    l->sealed_seen = false;
    l->we_refused = false;
    l->last_rx = l->now;
    l->last_tx = l->now;
    /* HELLO_REPLY(kind, D, echo S, Nd, proof, fw, serial); proof: the counter-0 tag of an
     * empty plaintext over this payload with the proof zeroed (section 4b). */
    uint8_t *p = l->hello_reply;
    size_t n = 0;
    p[n++] = l->kind;
    fw_put32(p + n, d);
    n += 4;
    fw_put32(p + n, station_session);
    n += 4;
    memcpy(p + n, nonce, 16);
    n += 16;
    size_t proof_at = n;
    memset(p + n, 0, 16);
    n += 16;
    n += put_text(p + n, l->firmware);
    n += put_text(p + n, l->serial);
    l->hello_reply_len = (uint8_t)n;
    uint8_t tag[16];
    fw_aead_seal(l->k_tx, 0, p, n, NULL, 0, NULL, tag);
    memcpy(p + proof_at, tag, 16);
    l->state = FW_CONNECTED;
    l->stats.sessions++;
}

static void on_hello(fw_link *l, uint8_t version, const uint8_t *p, size_t n) {
    /* kind u8, session u32, nonce 16, firmware text, serial text: exactly */
    size_t at = 21;
    if (n < at || !take_text(p, n, &at, FW_MAX_TEXT) || !take_text(p, n, &at, FW_MAX_TEXT) ||
        at != n || p[0] < FW_KIND_SHUFFLER || p[0] > FW_KIND_PANEL) {
        l->stats.dropped++;
        return;
    }
    uint8_t kind = p[0];
    uint32_t s = fw_get32(p + 1);
    if (l->state == FW_CONNECTED) {
        if (s == l->peer_session) { /* our reply was lost: the same reply again */
            plain(l, FW_T_HELLO_REPLY, l->hello_reply, l->hello_reply_len);
            return;
        }
        link_down(l); /* the station started over */
    }
    if (l->state == FW_REFUSED) {
        if (s == l->refused_session) {
            if (l->we_refused) refuse(l, s);
            return;
        }
        l->state = FW_NO_SESSION;
        l->down_session = 0;
    }
    if (l->down_session != 0 && s == l->down_session) return; /* a late HELLO of it */
    l->lead = true;
    uint8_t code = 0, arg = 0;
    if (version != FW_VERSION) {
        code = REFUSE_VERSION;
        arg = version;
    } else if (kind != l->kind) {
        code = REFUSE_KIND;
        arg = kind;
    } else if (!l->paired) {
        code = REFUSE_UNPAIRED;
    }
    if (code) {
        l->state = FW_REFUSED;
        l->refused_session = s;
        l->we_refused = true;
        l->refusal_code = code;
        l->refusal_arg = arg;
        refuse(l, s);
        return;
    }
    accept_hello(l, s, p + 5);
    plain(l, FW_T_HELLO_REPLY, l->hello_reply, l->hello_reply_len);
    launch(l); /* reports that waited for a session go out after the reply */
}

static void on_refused(fw_link *l, const uint8_t *p, size_t n) {
    size_t at = 4;
    if (n < at || !take_text(p, n, &at, 200) || at != n) {
        l->stats.dropped++;
        return;
    }
    if (l->state != FW_CONNECTED || fw_get32(p) != l->session) return;
    if (l->sealed_seen) {
        /* The station refuses only before it sends a sealed frame: once one arrived, an
         * unsealed REFUSED is not the station's (section 4, "Ending a session"). */
        l->stats.forged_ends++;
        return;
    }
    l->refused_session = l->peer_session;
    l->we_refused = false;
    l->stats.refusals++;
    end_session(l);
    l->state = FW_REFUSED;
}

static void on_pair_request(fw_link *l, const uint8_t *p, size_t n) {
    size_t at = 33;
    if (n < at || !take_text(p, n, &at, FW_MAX_TEXT) || at != n || p[0] < FW_KIND_SHUFFLER ||
        p[0] > FW_KIND_PANEL) {
        l->stats.dropped++;
        return;
    }
    const uint8_t *station_key = p + 1;
    if (l->pair_answered && fw_equal(station_key, l->pair_request_key, 32)) {
        plain(l, FW_T_PAIR_REPLY, l->pair_reply, l->pair_reply_len); /* the same answer */
        return;
    }
    char reason[80];
    text t = {reason, 0, sizeof reason};
    if (p[0] != l->kind) {
        put(&t, "pairing refused: this device is a ");
        put(&t, fw_kind_name(l->kind));
    } else if (!l->ops->pair_consent(l->ctx)) {
        put(&t, "pairing refused: hold the device's pairing button");
    } else {
        uint8_t priv[32], pub[32], secret[32];
        l->ops->random(l->ctx, priv, sizeof priv);
        fw_x25519_public(pub, priv);
        bool usable = fw_pairing_secret(priv, station_key, station_key, pub, l->kind, l->serial,
                                        strlen(l->serial), secret);
        fw_wipe(priv, sizeof priv);
        if (!usable) {
            l->stats.dropped++;
            return;
        }
        begin(l); /* a new secret ends any session of the old one */
        memcpy(l->secret, secret, 32);
        l->paired = true;
        l->ops->paired(l->ctx, secret, (const char *)p + 34, p[33]);
        fw_wipe(secret, sizeof secret);
        uint8_t *r = l->pair_reply;
        size_t m = 0;
        r[m++] = l->kind;
        memcpy(r + m, pub, 32);
        m += 32;
        m += put_text(r + m, l->firmware);
        m += put_text(r + m, l->serial);
        l->pair_reply_len = (uint8_t)m;
        memcpy(l->pair_request_key, station_key, 32);
        l->pair_answered = true;
        plain(l, FW_T_PAIR_REPLY, r, m);
        return;
    }
    refused_frame(l, 0, reason, t.n);
}

/* --- receiving ----------------------------------------------------------------------------- */

static void on_sealed(fw_link *l, const uint8_t *f, size_t n) {
    uint8_t type = f[1], seq = f[2], flags = f[3];
    size_t body = n - FW_HEADER - FW_CRC;
    if (!(flags & FW_FLAG_SEALED) || body < FW_SEAL_OVERHEAD) {
        l->stats.auth_failures++;
        l->stats.dropped++;
        return;
    }
    uint8_t msg[FW_MAX_PAYLOAD];
    size_t len;
    if (!fw_unseal(l->k_rx, &l->rx_last, f, f + FW_HEADER, body, msg, &len)) {
        l->stats.auth_failures++;
        l->stats.dropped++;
        return;
    }
    l->last_rx = l->now;
    l->sealed_seen = true;
    on_ack(l, f[4]);
    if (l->state != FW_CONNECTED) return;
    if (type == FW_T_HEARTBEAT || type == FW_T_ACK) {
        if (type == FW_T_HEARTBEAT && (flags & FW_FLAG_ACK_NOW)) {
            /* A heartbeat request (section 6): prove the session alive at once. */
            l->stats.heartbeat_requests++;
            sealed(l, FW_T_HEARTBEAT, 0, 0, NULL, 0);
        }
        return;
    }
    bool reliable = flags & FW_FLAG_RELIABLE;
    if (reliable) {
        if (!l->ack_due) {
            l->ack_due = true;
            l->ack_at = l->now + l->t.ack_delay_ms;
        }
        l->ack_owed++;
        if (flags & FW_FLAG_ACK_NOW) l->ack_owed = l->t.ack_every;
        uint8_t ahead = (uint8_t)(seq - l->expected);
        if (ahead != 0) {
            uint8_t behind = (uint8_t)(l->expected - seq);
            if (behind >= 1 && behind <= 128)
                l->stats.duplicates++;
            else
                l->stats.out_of_order++;
            l->ack_owed = l->t.ack_every; /* a resend or a gap: ack at once */
            return;
        }
        l->expected++;
    }
    if (type == FW_T_ECHO_REQUEST) {
        if (len < 1 || msg[0] > 200 || (size_t)msg[0] + 1 != len) {
            l->stats.rejected++;
            return;
        }
        sealed(l, FW_T_ECHO_REPLY, 0, 0, msg, len);
        return;
    }
    if (!l->ops->message(l->ctx, type, msg, len, reliable)) l->stats.rejected++;
}

static void on_frame(fw_link *l, const uint8_t *f, size_t n) {
    l->stats.frames_received++;
    uint8_t version = f[0], type = f[1];
    const uint8_t *payload = f + FW_HEADER;
    size_t plen = n - FW_HEADER - FW_CRC;
    if (type == FW_T_HELLO) {
        on_hello(l, version, payload, plen);
        return;
    }
    if (type == FW_T_REFUSED) {
        on_refused(l, payload, plen);
        return;
    }
    if (type == FW_T_HELLO_REPLY || version != FW_VERSION) {
        l->stats.dropped++;
        return;
    }
    if (type == FW_T_PAIR_REQUEST) {
        on_pair_request(l, payload, plen);
        return;
    }
    if (type == FW_T_PAIR_REPLY || type == FW_T_NO_SESSION) return;
    if (l->state != FW_CONNECTED) {
        if (l->state == FW_NO_SESSION) plain(l, FW_T_NO_SESSION, NULL, 0);
        l->stats.dropped++;
        return;
    }
    on_sealed(l, f, n);
}

void fw_link_rx(fw_link *l, const uint8_t *data, size_t n, uint32_t now) {
    l->now = now;
    uint8_t frame[FW_MAX_FRAME];
    for (size_t i = 0; i < n; i++) {
        fw_drop why;
        int len = fw_decoder_byte(&l->dec, data[i], frame, &why);
        if (len > 0)
            on_frame(l, frame, (size_t)len);
        else if (len < 0)
            l->stats.dropped++;
    }
    if (l->ack_due && l->ack_owed >= l->t.ack_every && l->state == FW_CONNECTED) {
        sealed(l, FW_T_ACK, 0, 0, NULL, 0);
    }
}

void fw_link_tick(fw_link *l, uint32_t now) {
    l->now = now;
    if (l->state != FW_CONNECTED) return;
    if (due(now, l->last_rx + l->t.silence_ms)) {
        link_down(l);
        return;
    }
    if (l->inflight) {
        fw_msg *oldest = slot(l, 0);
        if (due(now, oldest->sent_at + l->t.retransmit_ms)) {
            if (oldest->tries >= l->t.max_tries) {
                link_down(l);
                return;
            }
            /* go-back-N: every unacked frame again, in order, each sealed anew */
            for (unsigned i = 0; i < l->inflight; i++) {
                fw_msg *m = slot(l, i);
                m->tries++;
                m->sent_at = now;
                uint8_t flags = FW_FLAG_RELIABLE;
                if (l->hurry && i + 1u == l->inflight) flags |= FW_FLAG_ACK_NOW;
                sealed(l, m->type, (uint8_t)(l->base_seq + i), flags, m->data, m->len);
                if (l->state != FW_CONNECTED) return;
                l->stats.retransmits++;
            }
        }
    }
    if (l->ack_due && (l->ack_owed >= l->t.ack_every || due(now, l->ack_at))) {
        sealed(l, FW_T_ACK, 0, 0, NULL, 0);
        if (l->state != FW_CONNECTED) return;
    }
    if (due(now, l->last_tx + l->t.heartbeat_ms)) sealed(l, FW_T_HEARTBEAT, 0, 0, NULL, 0);
}

uint32_t fw_link_wait(const fw_link *l, uint32_t now) {
    if (l->state != FW_CONNECTED) return UINT32_MAX;
    uint32_t at = l->last_rx + l->t.silence_ms;
    uint32_t hb = l->last_tx + l->t.heartbeat_ms;
    if ((int32_t)(hb - at) < 0) at = hb;
    if (l->ack_due && (int32_t)(l->ack_at - at) < 0) at = l->ack_at;
    if (l->inflight) {
        uint32_t rt = l->queue[l->q_head].sent_at + l->t.retransmit_ms;
        if ((int32_t)(rt - at) < 0) at = rt;
    }
    int32_t wait = (int32_t)(at - now);
    return wait < 0 ? 0u : (uint32_t)wait;
}

void fw_link_init(fw_link *l, uint8_t kind, const char *firmware, const char *serial,
                  const fw_timing *t, const fw_link_ops *ops, void *ctx, const uint8_t *secret,
                  uint32_t now) {
    memset(l, 0, sizeof *l);
    l->kind = kind;
    strncpy(l->firmware, firmware, FW_MAX_TEXT);
    strncpy(l->serial, serial, FW_MAX_TEXT);
    l->t = t ? *t : FW_DEFAULT_TIMING;
    if (l->t.window < 1) l->t.window = 1;
    if (l->t.window > FW_MAX_WINDOW) l->t.window = FW_MAX_WINDOW;
    if (l->t.ack_every < 1) l->t.ack_every = 1;
    if (l->t.ack_every > l->t.window) l->t.ack_every = l->t.window;
    l->ops = ops;
    l->ctx = ctx;
    if (secret) {
        memcpy(l->secret, secret, 32);
        l->paired = true;
    }
    l->state = FW_NO_SESSION;
    l->lead = true;
    l->now = now;
    fw_decoder_reset(&l->dec);
}
