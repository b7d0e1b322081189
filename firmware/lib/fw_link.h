/* The device side of one link (docs/protocol.md sections 4 to 6b): handshake, pairing,
 * seals, reliable delivery, heartbeats. Sans-I/O: the caller passes the time in
 * milliseconds (a free-running counter; wrapping is fine) and the link writes frames
 * through ops->write. One struct, no heap: about 6 KB with the default queue. */
#ifndef FW_LINK_H
#define FW_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_crypto.h"
#include "fw_wire.h"

/* Type numbers of the link layer (section 7). */
enum {
    FW_T_HELLO = 0x01, FW_T_HELLO_REPLY = 0x02, FW_T_REFUSED = 0x03, FW_T_HEARTBEAT = 0x04,
    FW_T_ACK = 0x05, FW_T_NO_SESSION = 0x06, FW_T_PAIR_REQUEST = 0x07, FW_T_PAIR_REPLY = 0x08,
    FW_T_ECHO_REQUEST = 0x70, FW_T_ECHO_REPLY = 0x71,
};
enum { FW_KIND_SHUFFLER = 1, FW_KIND_SHOE = 2, FW_KIND_CARD_READER = 3, FW_KIND_PANEL = 4 };

#define FW_MAX_MESSAGE 220u  /* a sealed frame's message payload */
#define FW_MAX_TEXT 32u      /* firmware and serial texts */
#ifndef FW_QUEUE
#define FW_QUEUE 24u         /* reports held for the station (window + backlog) */
#endif
#define FW_MAX_WINDOW 8u

typedef struct {
    uint32_t retransmit_ms;  /* 100 */
    uint32_t heartbeat_ms;   /* 1000 */
    uint32_t silence_ms;     /* 3500 */
    uint32_t ack_delay_ms;   /* 10 */
    uint8_t max_tries;       /* 5 */
    uint8_t window;          /* 8 (1..8) */
    uint8_t ack_every;       /* 4 */
} fw_timing;

extern const fw_timing FW_DEFAULT_TIMING;

typedef struct {
    /* Write bytes to the station (the UART). */
    void (*write)(void *ctx, const uint8_t *data, size_t n);
    /* Fill buf with bytes from the secure random source. */
    void (*random)(void *ctx, uint8_t *buf, size_t n);
    /* A message of the session, in order, exactly once. Return false if it is unusable
     * (counted as rejected; the frame is acknowledged all the same, section 5). */
    bool (*message)(void *ctx, uint8_t type, const uint8_t *payload, size_t n, bool reliable);
    /* Whether pairing may go ahead now (the pairing button held). */
    bool (*pair_consent)(void *ctx);
    /* A new pairing secret: keep it in flash. */
    void (*paired)(void *ctx, const uint8_t secret[32], const char *station, size_t station_len);
} fw_link_ops;

typedef enum { FW_NO_SESSION = 0, FW_CONNECTED, FW_REFUSED } fw_state;

typedef struct {
    uint32_t frames_received, frames_sent, dropped, auth_failures, rejected, duplicates,
        out_of_order, retransmits, sessions, link_downs, forged_ends, heartbeat_requests,
        refusals;
} fw_stats;

typedef struct {
    uint8_t type, len, tries;
    uint32_t sent_at;
    uint8_t data[FW_MAX_MESSAGE];
} fw_msg;

typedef struct {
    /* configuration */
    uint8_t kind;
    char firmware[FW_MAX_TEXT + 1];
    char serial[FW_MAX_TEXT + 1];
    fw_timing t;
    const fw_link_ops *ops;
    void *ctx;
    bool paired;
    uint8_t secret[32];
    /* pairing: the last answer, sent again for the same request */
    bool pair_answered;
    uint8_t pair_request_key[32];
    uint8_t pair_reply[1 + 32 + 2 + 2 * FW_MAX_TEXT];
    uint8_t pair_reply_len;
    /* session */
    fw_state state;
    uint32_t session, peer_session, down_session, refused_session;
    bool we_refused, sealed_seen, lead;
    uint8_t refusal_code; /* what we refused for, to say it again */
    uint8_t refusal_arg;
    uint8_t hello_reply[1 + 4 + 4 + 16 + 16 + 2 + 2 * FW_MAX_TEXT];
    uint8_t hello_reply_len;
    uint8_t k_tx[32], k_rx[32];
    uint32_t tx_counter, rx_last;
    /* a new session a HELLO asked for while connected (section 4c): answered, joined when
     * one of its sealed frames opens; nothing sealed goes out meanwhile */
    bool pending;
    uint32_t pending_session, pending_peer_session;
    uint8_t pending_k_tx[32], pending_k_rx[32];
    uint8_t pending_reply[1 + 4 + 4 + 16 + 16 + 2 + 2 * FW_MAX_TEXT];
    uint8_t pending_reply_len;
    /* reliable delivery */
    uint8_t base_seq, inflight, expected, ack_owed;
    bool ack_due, hurry;
    uint32_t ack_at, last_rx, last_tx, now;
    fw_msg queue[FW_QUEUE];
    uint8_t q_head, q_len;
    fw_decoder dec;
    fw_stats stats;
} fw_link;

void fw_link_init(fw_link *l, uint8_t kind, const char *firmware, const char *serial,
                  const fw_timing *t, const fw_link_ops *ops, void *ctx,
                  const uint8_t *secret /* NULL: not paired */, uint32_t now);
/* Bytes from the station. */
void fw_link_rx(fw_link *l, const uint8_t *data, size_t n, uint32_t now);
/* Run the timers; call at least by fw_link_next_deadline(). */
void fw_link_tick(fw_link *l, uint32_t now);
/* Milliseconds until fw_link_tick has work (UINT32_MAX: none until bytes arrive). */
uint32_t fw_link_wait(const fw_link *l, uint32_t now);
/* Queue a reliable report (sent now if the window is open, else when it opens or in the
 * next session). False: the queue is full, or payload too long. */
bool fw_link_send(fw_link *l, uint8_t type, const uint8_t *payload, size_t n, uint32_t now);
/* Ask the station to acknowledge what is queued at once (flag ACK_NOW). */
void fw_link_ack_now(fw_link *l);
/* Reports not yet acknowledged (in flight or waiting). */
static inline unsigned fw_link_unconfirmed(const fw_link *l) { return l->q_len; }
static inline bool fw_link_connected(const fw_link *l) { return l->state == FW_CONNECTED; }
/* Forget every report (a power cycle's loss of RAM: for tests). */
void fw_link_clear_queue(fw_link *l);
/* The session keys (section 4b): HKDF-SHA256(secret, salt = Ns | Nd, info = "dealer-station
 * link v2 " | kind), 64 bytes: station-to-device, then device-to-station. */
void fw_session_keys(const uint8_t secret[32], const uint8_t ns[16], const uint8_t nd[16],
                     uint8_t kind, uint8_t s2d[32], uint8_t d2s[32]);
/* The pairing secret (section 4a) from this side's X25519 private key and both public keys;
 * false for a degenerate (low-order) peer key. */
bool fw_pairing_secret(const uint8_t priv[32], const uint8_t peer_pub[32],
                       const uint8_t station_pub[32], const uint8_t device_pub[32], uint8_t kind,
                       const char *serial, size_t serial_len, uint8_t out[32]);
/* A sealed body (section 4b): counter | ciphertext | tag, for msg under the 5 header
 * bytes; returns its length (n + 20). */
size_t fw_seal(const uint8_t key[32], uint32_t counter, const uint8_t header[FW_HEADER],
               const uint8_t *msg, size_t n, uint8_t *body);
/* Open a sealed body: false for a short body, a counter not above *last, or a bad tag;
 * else the message in msg, its length in *n, and *last advanced. */
bool fw_unseal(const uint8_t key[32], uint32_t *last, const uint8_t header[FW_HEADER],
               const uint8_t *body, size_t body_len, uint8_t *msg, size_t *n);
/* Kind name as the protocol's refusal texts write it ("shoe", "card_reader"...). */
const char *fw_kind_name(uint8_t kind);

#endif
