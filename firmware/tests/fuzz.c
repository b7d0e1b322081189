/* The C decoders under the Python fuzzers (tests/test_firmware_fuzz.py, bench/fuzz_bridge.py).
 * Reads records from stdin, each a u16 big-endian length then that many bytes, and feeds
 * every record to: the frame decoder; a paired device link already in a session (so the
 * sealed path is reached); the shoe's and the panel's message decoders (first byte the
 * type, the rest the payload: what an authenticated frame would hand them); and the bench
 * control parser (as a text line). Built with AddressSanitizer and UBSan: any read out of
 * bounds or undefined behaviour aborts. With --echo a byte '.' goes to stdout after each
 * record (a caller that times it out has found a hang). At the end one line:
 * "inputs=N frames=N dropped=N auth_failures=N delivered=N" (delivered: messages the link
 * handed on; fuzzed bytes carry no valid seal, so any is a failure). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "fw_link.h"
#include "platform.h"

/* The board, stubbed: the applications' reports go to a link with no session. */
void plat_wire_write(const uint8_t *data, size_t n) { (void)data; (void)n; }
void plat_random(uint8_t *buf, size_t n) { memset(buf, 0x5A, n); }
bool plat_flash_read(void *page, size_t n) { (void)page; (void)n; return false; }
void plat_flash_write(const void *page, size_t n) { (void)page; (void)n; }
const fw_app FW_APP = {FW_KIND_SHOE, 0, shoe_message, shoe_command, shoe_status,
                       shoe_consent, shoe_boot};

static unsigned long delivered;
static uint32_t rng_state = 1;

static void f_write(void *c, const uint8_t *d, size_t n) { (void)c; (void)d; (void)n; }
static void f_random(void *c, uint8_t *b, size_t n) {
    (void)c;
    for (size_t i = 0; i < n; i++) {
        rng_state = rng_state * 1103515245u + 12345u;
        b[i] = (uint8_t)(rng_state >> 16);
    }
}
static bool f_message(void *c, uint8_t t, const uint8_t *p, size_t n, bool r) {
    (void)c; (void)t; (void)p; (void)n; (void)r;
    delivered++;
    return true;
}
static bool f_consent(void *c) { (void)c; return true; }
static void f_paired(void *c, const uint8_t s[32], const char *st, size_t n) {
    (void)c; (void)s; (void)st; (void)n;
}

static const fw_link_ops OPS = {f_write, f_random, f_message, f_consent, f_paired};
static fw_link link_;

static void open_session(uint32_t now) {
    /* a HELLO of the station's: kind shoe, session 0x12345678, nonce 0..15, "fz", "T1" */
    uint8_t p[21 + 3 + 3];
    size_t n = 0;
    p[n++] = FW_KIND_SHOE;
    fw_put32(p + n, 0x12345678u);
    n += 4;
    for (int i = 0; i < 16; i++) p[n++] = (uint8_t)i;
    p[n++] = 2; p[n++] = 'f'; p[n++] = 'z';
    p[n++] = 2; p[n++] = 'T'; p[n++] = '1';
    fw_header h = {FW_VERSION, FW_T_HELLO, 0, 0, 0};
    uint8_t wire[FW_WIRE_MAX];
    size_t len = fw_frame_wire(&h, p, n, true, wire);
    fw_link_rx(&link_, wire, len, now);
}

static size_t read_all(uint8_t *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(0, buf + got, n - got);
        if (r <= 0) return got;
        got += (size_t)r;
    }
    return got;
}

int main(int argc, char **argv) {
    bool echo = argc > 1 && strcmp(argv[1], "--echo") == 0;
    uint8_t secret[32];
    for (int i = 0; i < 32; i++) secret[i] = (uint8_t)i;
    uint32_t now = 1000;
    fw_link_init(&link_, FW_KIND_SHOE, "fz-1", "F1", NULL, &OPS, NULL, secret, now);
    dev_boot("FZ-1", "fz-1", NULL, now);
    open_session(now);
    fw_decoder dec;
    fw_decoder_reset(&dec);
    unsigned long inputs = 0, frames = 0, dropped = 0;
    uint8_t buf[65536], frame[FW_MAX_FRAME];
    for (;;) {
        uint8_t hdr[2];
        if (read_all(hdr, 2) != 2) break;
        size_t n = (size_t)(hdr[0] << 8 | hdr[1]);
        if (read_all(buf, n) != n) break;
        inputs++;
        for (size_t i = 0; i < n; i++) {
            fw_drop why;
            int len = fw_decoder_byte(&dec, buf[i], frame, &why);
            if (len > 0) frames++;
            else if (len < 0) dropped++;
        }
        /* the link: a session kept up (a new HELLO whenever the fuzz ended it) */
        now += 7;
        if (!fw_link_connected(&link_)) open_session(now);
        fw_link_rx(&link_, buf, n, now);
        fw_link_tick(&link_, now);
        if (n) {
            shoe_message(buf[0], buf + 1, n - 1);
            panel_message(buf[0], buf + 1, n - 1);
        }
        /* the bench control parser, with the record as one text line (the panel's commands
         * through their own table: device.c dispatches to the shoe's) */
        char line[512], reply[2048];
        size_t ln = n < sizeof line - 1 ? n : sizeof line - 1;
        for (size_t i = 0; i < ln; i++) line[i] = buf[i] ? (char)buf[i] : ' ';
        line[ln] = 0;
        dev_control(line, reply, sizeof reply, now);
        const char *args = line;
        char cmd[24];
        if (txt_word(&args, cmd, sizeof cmd)) {
            char body[1024] = "";
            panel_command(cmd, args, body, sizeof body);
        }
        if (echo && write(1, ".", 1) != 1) return 3;
    }
    printf("inputs=%lu frames=%lu dropped=%lu auth_failures=%lu delivered=%lu\n", inputs, frames,
           dropped, (unsigned long)link_.stats.auth_failures, delivered);
    return 0;
}
