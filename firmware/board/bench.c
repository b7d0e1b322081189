/* The budget bench (bench/firmware_budget.py): the cost of each cryptographic step of the
 * protocol on the Cortex-M3 image, measured in instructions under QEMU's -icount shift=0
 * (one instruction per nanosecond of virtual time, read from SysTick), and the stack each
 * step needs (painted before, high-water mark after). Prints one line per step on UART1:
 *   STEP instructions=N stack=BYTES
 * then "done". */
#include <stdint.h>
#include <string.h>

#include "fw_crypto.h"
#include "fw_link.h"
#include "fw_wire.h"

void board_init(void);
void reply_line(const char *s);
uint64_t board_ticks(void);
void board_paint_stack(void);
uint32_t board_stack_used(void);
void txt_put(char *out, size_t cap, const char *s);
void txt_uint(char *out, size_t cap, uint32_t v);

static uint8_t key[32], msg[FW_MAX_MESSAGE], body[FW_MAX_MESSAGE + 20], wire[FW_WIRE_MAX];

typedef void (*step_fn)(unsigned i);

static void seal_card(unsigned i) {
    /* a card report, sealed and framed: what the shoe does per card */
    static const uint8_t header[5] = {2, 0x20, 0, 3, 0};
    size_t n = fw_seal(key, i + 1u, header, msg, 4, body);
    fw_header h = {2, 0x20, 0, 3, 0};
    fw_frame_wire(&h, body, n, false, wire);
}

static void seal_max(unsigned i) {
    static const uint8_t header[5] = {2, 0x44, 0, 3, 0};
    size_t n = fw_seal(key, i + 1u, header, msg, FW_MAX_MESSAGE, body);
    fw_header h = {2, 0x44, 0, 3, 0};
    fw_frame_wire(&h, body, n, false, wire);
}

static uint8_t sealed_card[4 + 4 + 16];
static void open_card(unsigned i) {
    (void)i;
    static const uint8_t header[5] = {2, 0x20, 0, 3, 0};
    uint32_t last = 0;
    uint8_t out[8];
    size_t n;
    fw_unseal(key, &last, header, sealed_card, sizeof sealed_card, out, &n);
}

static void decode_frame(unsigned i) {
    (void)i;
    fw_decoder d;
    fw_decoder_reset(&d);
    uint8_t frame[FW_MAX_FRAME];
    fw_drop why;
    size_t k = 0;
    do fw_decoder_byte(&d, wire[k], frame, &why);
    while (wire[k++] != 0); /* through the delimiter: COBS, length and CRC checked */
}

static void session_keys(unsigned i) {
    uint8_t s2d[32], d2s[32], ns[16] = {(uint8_t)i}, nd[16] = {0};
    fw_session_keys(key, ns, nd, 2, s2d, d2s);
    uint8_t tag[16];
    fw_aead_seal(d2s, 0, msg, 60, NULL, 0, NULL, tag); /* and the HELLO_REPLY's proof */
}

static void pairing(unsigned i) {
    uint8_t priv[32], pub[32], peer[32], secret[32];
    memset(priv, (int)(i + 1u), sizeof priv);
    memset(peer, 9, sizeof peer); /* the X25519 base point's u = 9 */
    peer[1] = (uint8_t)i;
    fw_x25519_public(pub, priv);
    fw_pairing_secret(priv, peer, peer, pub, 2, "SHO-0000042", 11, secret);
}

static void commitment(unsigned i) {
    uint8_t text[35] = "KD|000102030405060708090a0b0c0d0e0f";
    text[0] = (uint8_t)('A' + i % 26u);
    uint8_t out[32];
    fw_sha256(text, sizeof text, out);
}

static void run(const char *name, step_fn fn, unsigned reps) {
    board_paint_stack();
    uint64_t start = board_ticks();
    for (unsigned i = 0; i < reps; i++) fn(i);
    uint64_t ticks = board_ticks() - start;
    char line[96] = "";
    txt_put(line, sizeof line, name);
    txt_put(line, sizeof line, " instructions=");
    txt_uint(line, sizeof line, (uint32_t)(ticks * 40u / reps));
    txt_put(line, sizeof line, " stack=");
    txt_uint(line, sizeof line, board_stack_used());
    reply_line(line);
}

int main(void) {
    board_init();
    for (unsigned i = 0; i < sizeof key; i++) key[i] = (uint8_t)i;
    msg[0] = 7;
    msg[1] = 'H';
    msg[3] = 1;
    static const uint8_t header[5] = {2, 0x20, 0, 3, 0};
    fw_seal(key, 1, header, msg, 4, sealed_card);
    run("seal_card_frame", seal_card, 200);
    run("open_card_frame", open_card, 200);
    run("decode_card_frame", decode_frame, 200);
    run("seal_220_byte_frame", seal_max, 50);
    run("session_keys_and_proof", session_keys, 20);
    run("hole_card_commitment", commitment, 100);
    run("pairing_x25519_hkdf", pairing, 2);
    reply_line("done");
    for (;;) {
        __asm__ volatile("wfi");
    }
}
