/* The device side of a link: session keys, seals, the handshake and pairing
 * (docs/protocol.md sections 4, 4a, 4b and 4c). */
#include <string.h>

#include "fw_link_impl.h"

static const char LINK_INFO[] = "dealer-station link v2 ";
static const char PAIRING_INFO[] = "dealer-station pairing v2 ";

enum { REFUSE_VERSION = 1, REFUSE_KIND, REFUSE_UNPAIRED };

/* --- small helpers ------------------------------------------------------------------- */

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

/* --- sessions ---------------------------------------------------------------------------- */

static void drop_pending(fw_link *l) {
    l->pending = false;
    fw_wipe(l->pending_k_tx, sizeof l->pending_k_tx);
    fw_wipe(l->pending_k_rx, sizeof l->pending_k_rx);
}

static void end_session(fw_link *l) {
    /* Reports in flight go out again, first, in the next session (section 7, draw
     * numbers: the station drops what it already has). */
    l->inflight = 0;
    l->hurry = false;
    l->ack_due = false;
    fw_wipe(l->k_tx, sizeof l->k_tx);
    fw_wipe(l->k_rx, sizeof l->k_rx);
    drop_pending(l);
    l->state = FW_NO_SESSION;
}

void fwi_link_down(fw_link *l) {
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

/* Why a HELLO of this frame version and kind is refused (0: it is not), and the argument
 * the refusal's text names. */
static uint8_t hello_refusal(const fw_link *l, uint8_t version, uint8_t kind, uint8_t *arg) {
    if (version != FW_VERSION) {
        *arg = version;
        return REFUSE_VERSION;
    }
    if (kind != l->kind) {
        *arg = kind;
        return REFUSE_KIND;
    }
    return l->paired ? 0 : REFUSE_UNPAIRED;
}

static void refuse(fw_link *l, uint32_t echo) {
    char reason[200];
    size_t n;
    build_refusal(l, l->refusal_code, l->refusal_arg, reason, &n);
    fwi_refused_frame(l, echo, reason, n);
}

/* A new session's number D, its keys and its HELLO_REPLY for a HELLO of session S with the
 * station's nonce: into the current session, or into the pending one (section 4c). */
static uint32_t answer_hello(fw_link *l, uint32_t station_session, const uint8_t station_nonce[16],
                             uint8_t k_rx[32], uint8_t k_tx[32], uint8_t *p, uint8_t *len) {
    uint32_t d;
    do l->ops->random(l->ctx, (uint8_t *)&d, sizeof d);
    while (d == 0 || d == l->session);
    uint8_t nonce[16];
    l->ops->random(l->ctx, nonce, sizeof nonce);
    fw_session_keys(l->secret, station_nonce, nonce, l->kind, k_rx, k_tx);
    /* HELLO_REPLY(kind, D, echo S, Nd, proof, fw, serial); proof: the counter-0 tag of an
     * empty plaintext over this payload with the proof zeroed (section 4b). */
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
    *len = (uint8_t)n;
    uint8_t tag[16];
    fw_aead_seal(k_tx, 0, p, n, NULL, 0, NULL, tag);
    memcpy(p + proof_at, tag, 16);
    return d;
}

/* Connected in session D with the station's session S (keys already in place). */
static void connect_session(fw_link *l, uint32_t d, uint32_t station_session) {
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
    l->state = FW_CONNECTED;
    l->stats.sessions++;
}

static void accept_hello(fw_link *l, uint32_t station_session, const uint8_t station_nonce[16]) {
    uint32_t d = answer_hello(l, station_session, station_nonce, l->k_rx, l->k_tx, l->hello_reply,
                              &l->hello_reply_len);
    connect_session(l, d, station_session);
}

void fwi_join_pending(fw_link *l) {
    /* The old session ends (its reports in flight go out again first), the pending one
     * begins: its keys, its reply, counters from zero. */
    uint32_t d = l->pending_session, s = l->pending_peer_session;
    uint8_t k_rx[32], k_tx[32];
    memcpy(k_rx, l->pending_k_rx, 32);
    memcpy(k_tx, l->pending_k_tx, 32);
    memcpy(l->hello_reply, l->pending_reply, l->pending_reply_len);
    l->hello_reply_len = l->pending_reply_len;
    fwi_link_down(l); /* wipes the old keys and the pending ones */
    memcpy(l->k_rx, k_rx, 32);
    memcpy(l->k_tx, k_tx, 32);
    fw_wipe(k_rx, sizeof k_rx);
    fw_wipe(k_tx, sizeof k_tx);
    connect_session(l, d, s);
    l->lead = true;
}

bool fwi_open_pending(fw_link *l, const uint8_t *f, size_t body, uint8_t *msg, size_t *n) {
    uint32_t last = 0;
    if (!l->pending || !fw_unseal(l->pending_k_rx, &last, f, f + FW_HEADER, body, msg, n))
        return false;
    fwi_join_pending(l);
    l->rx_last = last;
    return true;
}

void fwi_forget_pending(fw_link *l) {
    drop_pending(l);
    l->stats.forged_ends++;
}

/* A HELLO of a new session while connected (section 4c): refused, or answered and kept
 * pending; the session goes on either way. */
static void hello_while_connected(fw_link *l, uint8_t version, uint8_t kind, uint32_t s,
                                  const uint8_t nonce[16]) {
    if (l->pending && s == l->pending_peer_session) { /* its reply was lost */
        fwi_plain(l, FW_T_HELLO_REPLY, l->pending_reply, l->pending_reply_len);
        return;
    }
    uint8_t arg = 0, code = hello_refusal(l, version, kind, &arg);
    if (code) {
        char reason[200];
        size_t n;
        build_refusal(l, code, arg, reason, &n);
        fwi_refused_frame(l, s, reason, n);
        return;
    }
    l->pending_session = answer_hello(l, s, nonce, l->pending_k_rx, l->pending_k_tx,
                                      l->pending_reply, &l->pending_reply_len);
    l->pending_peer_session = s;
    l->pending = true;
    fwi_plain(l, FW_T_HELLO_REPLY, l->pending_reply, l->pending_reply_len);
}

void fwi_on_hello(fw_link *l, uint8_t version, const uint8_t *p, size_t n) {
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
            fwi_plain(l, FW_T_HELLO_REPLY, l->hello_reply, l->hello_reply_len);
            return;
        }
        /* The station started over, or anyone on the line wrote this: not on its word */
        hello_while_connected(l, version, kind, s, p + 5);
        return;
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
    uint8_t arg = 0, code = hello_refusal(l, version, kind, &arg);
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
    fwi_plain(l, FW_T_HELLO_REPLY, l->hello_reply, l->hello_reply_len);
    fwi_launch(l); /* reports that waited for a session go out after the reply */
}

void fwi_on_refused(fw_link *l, const uint8_t *p, size_t n) {
    size_t at = 4;
    if (n < at || !take_text(p, n, &at, 200) || at != n) {
        l->stats.dropped++;
        return;
    }
    if (l->state == FW_CONNECTED && l->pending && fw_get32(p) == l->pending_session) {
        drop_pending(l); /* the station refused the new session: this one goes on */
        fwi_launch(l);
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

void fwi_on_pair_request(fw_link *l, const uint8_t *p, size_t n) {
    size_t at = 33;
    if (n < at || !take_text(p, n, &at, FW_MAX_TEXT) || at != n || p[0] < FW_KIND_SHUFFLER ||
        p[0] > FW_KIND_PANEL) {
        l->stats.dropped++;
        return;
    }
    const uint8_t *station_key = p + 1;
    if (l->pair_answered && fw_equal(station_key, l->pair_request_key, 32)) {
        fwi_plain(l, FW_T_PAIR_REPLY, l->pair_reply, l->pair_reply_len); /* the same answer */
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
        fwi_plain(l, FW_T_PAIR_REPLY, r, m);
        return;
    }
    fwi_refused_frame(l, 0, reason, t.n);
}

