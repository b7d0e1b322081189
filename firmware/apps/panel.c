/* The dealer's panel board (docs/protocol.md section 7, 0x41-0x44, docs/panel.md): lamps the
 * station lights, buttons, the supervisor key switch and the seats' wager sensors. Lamp
 * and button numbers are the board's wiring table; the station maps them. */
#include <string.h>

#include "device.h"

enum { T_BUTTON = 0x41, T_WAGER = 0x42, T_LAMPS = 0x43, T_SCAN = 0x44 };
#define SCAN_MAX 31u

typedef struct {
    uint32_t steady, blink, lamp_frames, refused_lamp_frames;
    uint8_t key_on, key_code, scanning, scanned;
    uint8_t scan[SCAN_MAX][7];
} panel_state;

static panel_state P; /* lamps go dark at power-up: nothing here is kept in flash */

bool panel_message(uint8_t type, const uint8_t *p, size_t n) {
    if (type != T_LAMPS || n != 8) return false;
    uint32_t steady = fw_get32(p), blink = fw_get32(p + 4);
    if (steady & blink) { /* a lamp both steady and blinking: malformed */
        P.refused_lamp_frames++;
        return false;
    }
    P.steady = steady;
    P.blink = blink;
    P.lamp_frames++;
    return true;
}

static void flush_scan(void) {
    if (P.scanned == 1) {
        dev_report(T_WAGER, P.scan[0], 7);
    } else if (P.scanned > 1) {
        uint8_t p[1 + SCAN_MAX * 7];
        p[0] = P.scanned;
        memcpy(p + 1, P.scan, (size_t)P.scanned * 7u);
        dev_report(T_SCAN, p, 1u + (size_t)P.scanned * 7u);
    }
    P.scanned = 0;
}

bool panel_command(const char *cmd, const char *args, char *reply, size_t cap) {
    long a, b, c, d;
    if (strcmp(cmd, "press") == 0) { /* a press is reported, its release is not */
        if (!txt_num(&args, &a) || a < 0 || a > 255) {
            txt_put(reply, cap, "press: CODE (0..255)");
            return false;
        }
        flush_scan();
        uint8_t p[2] = {(uint8_t)a, 1};
        dev_report(T_BUTTON, p, 2);
        return true;
    }
    if (strcmp(cmd, "key") == 0) { /* the supervisor key: reported both ways */
        if (!txt_num(&args, &a) || a < 0 || a > 255 || !txt_num(&args, &b) || b < 0 || b > 1) {
            txt_put(reply, cap, "key: CODE 0|1");
            return false;
        }
        flush_scan();
        P.key_code = (uint8_t)a;
        P.key_on = (uint8_t)b;
        uint8_t p[2] = {(uint8_t)a, (uint8_t)b};
        dev_report(T_BUTTON, p, 2);
        return true;
    }
    if (strcmp(cmd, "key_switch") == 0) { /* the board's own key, not reported (pairing) */
        if (!txt_num(&args, &a) || a < 0 || a > 1) {
            txt_put(reply, cap, "key_switch: 0|1");
            return false;
        }
        P.key_on = (uint8_t)a;
        return true;
    }
    if (strcmp(cmd, "wager") == 0) { /* SEAT SPOT PRESENT CENTS (-1: unknown) */
        if (!txt_num(&args, &a) || a < 1 || a > 7 || !txt_num(&args, &b) || b < 1 || b > 3 ||
            !txt_num(&args, &c) || c < 0 || c > 1 || !txt_num(&args, &d) || d < -1) {
            txt_put(reply, cap, "wager: SEAT(1..7) SPOT(1..3) PRESENT(0|1) CENTS(-1: unknown)");
            return false;
        }
        uint8_t *r = P.scan[P.scanned];
        r[0] = (uint8_t)a;
        r[1] = (uint8_t)b;
        r[2] = (uint8_t)c;
        fw_put32(r + 3, d < 0 ? 0xFFFFFFFFu : (uint32_t)d);
        P.scanned++;
        if (!P.scanning || P.scanned == SCAN_MAX) flush_scan();
        return true;
    }
    if (strcmp(cmd, "hold") == 0) { /* sensor changes of one scan go out in one frame */
        P.scanning = 1;
        return true;
    }
    if (strcmp(cmd, "release") == 0) {
        P.scanning = 0;
        flush_scan();
        return true;
    }
    txt_put(reply, cap, "unknown command ");
    txt_put(reply, cap, cmd);
    return false;
}

void panel_status(char *out, size_t cap) {
    txt_put(out, cap, " steady=");
    txt_uint(out, cap, P.steady);
    txt_put(out, cap, " blink=");
    txt_uint(out, cap, P.blink);
    txt_put(out, cap, " lamp_frames=");
    txt_uint(out, cap, P.lamp_frames);
    txt_put(out, cap, " refused_lamp_frames=");
    txt_uint(out, cap, P.refused_lamp_frames);
    txt_put(out, cap, " key_on=");
    txt_uint(out, cap, P.key_on);
}

/* The board reads its key switch itself: pairing needs the key turned as well as the
 * pairing button held (docs/panel.md). */
bool panel_consent(bool button) { return button && P.key_on; }

void panel_boot(bool erased) {
    (void)erased;
    memset(&P, 0, sizeof P);
}

#ifndef FW_FUZZ /* the fuzz harness links both applications' decoders */
const fw_app FW_APP = {FW_KIND_PANEL, 0, panel_message, panel_command, panel_status,
                       panel_consent, panel_boot};
#endif
