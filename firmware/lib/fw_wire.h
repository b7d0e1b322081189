/* Framing of docs/protocol.md sections 2 and 3: CRC-16/CCITT-FALSE, COBS, the 5-byte
 * header. Portable C11, no heap, no OS. */
#ifndef FW_WIRE_H
#define FW_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FW_VERSION 2u             /* the protocol version this firmware speaks */
#define FW_HEADER 5u              /* version, type, seq, flags, ack */
#define FW_CRC 2u
#define FW_MIN_FRAME 7u           /* header + CRC */
#define FW_MAX_FRAME 247u         /* before COBS */
#define FW_MAX_PAYLOAD 240u       /* FW_MAX_FRAME - header - CRC */
#define FW_MAX_ENCODED 248u       /* a run longer than this is not a frame */
#define FW_WIRE_MAX (FW_MAX_ENCODED + 2u) /* a leading and a trailing 0x00 */

#define FW_FLAG_RELIABLE 0x01u
#define FW_FLAG_SEALED 0x02u
#define FW_FLAG_ACK_NOW 0x04u

uint16_t fw_crc16(const uint8_t *p, size_t n);

/* COBS-encode n bytes (n <= 254 * 255) into out; returns the encoded length (n + 1 for
 * n < 254). out needs n + n / 254 + 1 bytes. */
size_t fw_cobs_encode(const uint8_t *in, size_t n, uint8_t *out);
/* Decode n bytes of one run (no 0x00 inside); returns the decoded length, or -1 for a bad
 * code or an output over cap. */
int fw_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

typedef struct {
    uint8_t version, type, seq, flags, ack;
} fw_header;

/* The bytes on the wire for one frame: [0x00 if lead] COBS(header payload crc) 0x00.
 * payload_len <= FW_MAX_PAYLOAD; out holds FW_WIRE_MAX bytes. Returns the length. */
size_t fw_frame_wire(const fw_header *h, const uint8_t *payload, size_t payload_len,
                     bool lead, uint8_t *out);

/* Why the decoder dropped a run. */
typedef enum {
    FW_DROP_NONE = 0,
    FW_DROP_TOO_LONG,  /* a run over FW_MAX_ENCODED bytes */
    FW_DROP_COBS,      /* a bad COBS code */
    FW_DROP_LENGTH,    /* decoded under 7 or over 247 bytes */
    FW_DROP_CRC,       /* the CRC does not check */
} fw_drop;

/* A receiver: feed it bytes one at a time. */
typedef struct {
    uint8_t run[FW_MAX_ENCODED];
    size_t len;
    bool overflow;
} fw_decoder;

void fw_decoder_reset(fw_decoder *d);
/* Take one byte. Returns the length of a checked frame now in frame (FW_MAX_FRAME bytes,
 * CRC included), 0 when no frame ended, -1 when a run was dropped (*why says why). */
int fw_decoder_byte(fw_decoder *d, uint8_t byte, uint8_t *frame, fw_drop *why);

static inline void fw_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void fw_put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline uint16_t fw_get16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t fw_get32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

#endif
