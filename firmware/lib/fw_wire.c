/* Framing: docs/protocol.md sections 2 (COBS) and 3 (frame layout, CRC). */
#include "fw_wire.h"

#include <string.h>

uint16_t fw_crc16(const uint8_t *p, size_t n) {
    /* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final XOR. */
    uint32_t crc = 0xFFFFu;
    while (n--) {
        crc ^= (uint32_t)(*p++) << 8;
        for (int i = 0; i < 8; i++)
            crc = ((crc & 0x8000u) ? ((crc << 1) ^ 0x1021u) : (crc << 1)) & 0xFFFFu;
    }
    return (uint16_t)crc;
}

size_t fw_cobs_encode(const uint8_t *in, size_t n, uint8_t *out) {
    size_t code_at = 0, o = 1;
    uint8_t code = 1;
    for (size_t i = 0; i < n; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            out[o++] = in[i];
            if (++code == 0xFF) {
                out[code_at] = code;
                if (i + 1 == n) return o; /* a full block ends the input: no code after it */
                code_at = o++;
                code = 1;
            }
        }
    }
    out[code_at] = code;
    return o;
}

int fw_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap) {
    size_t i = 0, o = 0;
    while (i < n) {
        uint8_t code = in[i++];
        if (code == 0) return -1;
        for (uint8_t k = 1; k < code; k++) {
            if (i >= n || in[i] == 0 || o >= cap) return -1;
            out[o++] = in[i++];
        }
        if (code != 0xFF && i < n) {
            if (o >= cap) return -1;
            out[o++] = 0;
        }
    }
    return (int)o;
}

size_t fw_frame_wire(const fw_header *h, const uint8_t *payload, size_t payload_len,
                     bool lead, uint8_t *out) {
    uint8_t frame[FW_MAX_FRAME];
    frame[0] = h->version;
    frame[1] = h->type;
    frame[2] = h->seq;
    frame[3] = h->flags;
    frame[4] = h->ack;
    if (payload_len) memcpy(frame + FW_HEADER, payload, payload_len);
    size_t n = FW_HEADER + payload_len;
    fw_put16(frame + n, fw_crc16(frame, n));
    n += FW_CRC;
    size_t o = 0;
    if (lead) out[o++] = 0;
    o += fw_cobs_encode(frame, n, out + o);
    out[o++] = 0;
    return o;
}

void fw_decoder_reset(fw_decoder *d) {
    d->len = 0;
    d->overflow = false;
}

int fw_decoder_byte(fw_decoder *d, uint8_t byte, uint8_t *frame, fw_drop *why) {
    *why = FW_DROP_NONE;
    if (byte != 0) {
        if (d->len < FW_MAX_ENCODED)
            d->run[d->len++] = byte;
        else
            d->overflow = true;
        return 0;
    }
    size_t len = d->len;
    bool overflow = d->overflow;
    fw_decoder_reset(d);
    if (overflow) {
        *why = FW_DROP_TOO_LONG;
        return -1;
    }
    if (len == 0) return 0; /* two delimiters in a row */
    int n = fw_cobs_decode(d->run, len, frame, FW_MAX_FRAME);
    if (n < 0) {
        *why = FW_DROP_COBS;
        return -1;
    }
    if (n < (int)FW_MIN_FRAME || n > (int)FW_MAX_FRAME) {
        *why = FW_DROP_LENGTH;
        return -1;
    }
    if (fw_crc16(frame, (size_t)n) != 0) { /* over the CRC bytes too: 0 when intact */
        *why = FW_DROP_CRC;
        return -1;
    }
    return n;
}
