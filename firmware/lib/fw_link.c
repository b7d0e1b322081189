/* The device side of a link: frames out, the queue of reports, receiving, the timers
 * (docs/protocol.md sections 3, 5, 6 and 6a); the handshake, seals and pairing are in
 * fw_session.c. */
#include <string.h>

#include "fw_link_impl.h"

const fw_timing FW_DEFAULT_TIMING = {100u, 1000u, 3500u, 10u, 5u, 8u, 4u};

static bool due(uint32_t now, uint32_t at) { return (int32_t)(now - at) >= 0; }

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

void fwi_plain(fw_link *l, uint8_t type, const uint8_t *payload, size_t n) {
    write_frame(l, type, 0, 0, 0, payload, n);
}

/* A sealed frame of the session; it carries the current ack, so no ACK is owed after it. */
void fwi_sealed(fw_link *l, uint8_t type, uint8_t seq, uint8_t flags, const uint8_t *msg,
                   size_t n) {
    if (l->tx_counter == 0xFFFFFFFFu) { /* the counter would wrap: new session, new keys */
        fwi_link_down(l);
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

void fwi_refused_frame(fw_link *l, uint32_t echo, const char *reason, size_t n) {
    uint8_t p[4 + 1 + 200];
    if (n > 200) n = 200;
    fw_put32(p, echo);
    p[4] = (uint8_t)n;
    memcpy(p + 5, reason, n);
    fwi_plain(l, FW_T_REFUSED, p, 5 + n);
}

/* --- the queue of reports -------------------------------------------------------------- */

static fw_msg *slot(fw_link *l, unsigned i) { return &l->queue[(l->q_head + i) % FW_QUEUE]; }

/* Send queued reports into the window, setting ACK_NOW on the last when hurried. */
void fwi_launch(fw_link *l) {
    if (l->state != FW_CONNECTED || l->pending) return; /* held while a session is pending */
    unsigned window = l->t.window;
    unsigned last = l->inflight;
    while (l->inflight < window && l->inflight < l->q_len) {
        fw_msg *m = slot(l, l->inflight);
        m->tries = 1;
        m->sent_at = l->now;
        bool final = l->inflight + 1u == window || l->inflight + 1u == l->q_len;
        uint8_t flags = FW_FLAG_RELIABLE;
        if (l->hurry && final) flags |= FW_FLAG_ACK_NOW;
        fwi_sealed(l, m->type, (uint8_t)(l->base_seq + l->inflight), flags, m->data, m->len);
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
    fwi_launch(l);
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
    fwi_launch(l);
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
    bool pending = l->pending;
    if (fw_unseal(l->k_rx, &l->rx_last, f, f + FW_HEADER, body, msg, &len)) {
        if (pending) fwi_forget_pending(l); /* this session is alive: that HELLO was forged */
    } else if (!fwi_open_pending(l, f, body, msg, &len)) {
        l->stats.auth_failures++;
        l->stats.dropped++;
        return;
    }
    l->last_rx = l->now;
    if (pending) fwi_launch(l); /* what was held goes out, in whichever session is left */
    l->sealed_seen = true;
    on_ack(l, f[4]);
    if (l->state != FW_CONNECTED) return;
    if (type == FW_T_HEARTBEAT || type == FW_T_ACK) {
        if (type == FW_T_HEARTBEAT && (flags & FW_FLAG_ACK_NOW)) {
            /* A heartbeat request (section 6): prove the session alive at once. */
            l->stats.heartbeat_requests++;
            fwi_sealed(l, FW_T_HEARTBEAT, 0, 0, NULL, 0);
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
        fwi_sealed(l, FW_T_ECHO_REPLY, 0, 0, msg, len);
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
        fwi_on_hello(l, version, payload, plen);
        return;
    }
    if (type == FW_T_REFUSED) {
        fwi_on_refused(l, payload, plen);
        return;
    }
    if (type == FW_T_HELLO_REPLY || version != FW_VERSION) {
        l->stats.dropped++;
        return;
    }
    if (type == FW_T_PAIR_REQUEST) {
        fwi_on_pair_request(l, payload, plen);
        return;
    }
    if (type == FW_T_PAIR_REPLY || type == FW_T_NO_SESSION) return;
    if (l->state != FW_CONNECTED) {
        if (l->state == FW_NO_SESSION) fwi_plain(l, FW_T_NO_SESSION, NULL, 0);
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
    if (l->ack_due && l->ack_owed >= l->t.ack_every && l->state == FW_CONNECTED && !l->pending) {
        fwi_sealed(l, FW_T_ACK, 0, 0, NULL, 0);
    }
}

void fw_link_tick(fw_link *l, uint32_t now) {
    l->now = now;
    if (l->state != FW_CONNECTED) return;
    if (l->pending) {
        /* Only the silence of the session is timed; one that fell silent gives way to the
         * pending one, as a device without a session would join it (section 4c). */
        if (due(now, l->last_rx + l->t.silence_ms)) {
            fwi_join_pending(l);
            fwi_launch(l);
        }
        return;
    }
    if (due(now, l->last_rx + l->t.silence_ms)) {
        fwi_link_down(l);
        return;
    }
    if (l->inflight) {
        fw_msg *oldest = slot(l, 0);
        if (due(now, oldest->sent_at + l->t.retransmit_ms)) {
            if (oldest->tries >= l->t.max_tries) {
                fwi_link_down(l);
                return;
            }
            /* go-back-N: every unacked frame again, in order, each sealed anew */
            for (unsigned i = 0; i < l->inflight; i++) {
                fw_msg *m = slot(l, i);
                m->tries++;
                m->sent_at = now;
                uint8_t flags = FW_FLAG_RELIABLE;
                if (l->hurry && i + 1u == l->inflight) flags |= FW_FLAG_ACK_NOW;
                fwi_sealed(l, m->type, (uint8_t)(l->base_seq + i), flags, m->data, m->len);
                if (l->state != FW_CONNECTED) return;
                l->stats.retransmits++;
            }
        }
    }
    if (l->ack_due && (l->ack_owed >= l->t.ack_every || due(now, l->ack_at))) {
        fwi_sealed(l, FW_T_ACK, 0, 0, NULL, 0);
        if (l->state != FW_CONNECTED) return;
    }
    if (due(now, l->last_tx + l->t.heartbeat_ms)) fwi_sealed(l, FW_T_HEARTBEAT, 0, 0, NULL, 0);
}

uint32_t fw_link_wait(const fw_link *l, uint32_t now) {
    if (l->state != FW_CONNECTED) return UINT32_MAX;
    uint32_t at = l->last_rx + l->t.silence_ms;
    if (l->pending) {
        int32_t until = (int32_t)(at - now);
        return until < 0 ? 0u : (uint32_t)until;
    }
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
