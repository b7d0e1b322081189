/* The host build: one device application as a process, for the HIL suite and the bench.
 * The station's link is stdin/stdout (the test's pty relay or a socket), the bench control
 * channel two inherited file descriptors (requests in, replies out), one text line each;
 * the flash page is a file. Usage:
 *   fw-shoe --flash FILE [--serial S] [--firmware F] [--control IN,OUT]
 *           [--timing R,H,S,A,TRIES,WINDOW,EVERY]
 * (times in ms). Exits 0 when stdin closes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "platform.h"

static const char *g_flash_path;

void plat_wire_write(const uint8_t *data, size_t n) {
    while (n) {
        ssize_t w = write(1, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return; /* the cable is gone: bytes are lost, as on a UART */
        }
        data += w;
        n -= (size_t)w;
    }
}

void plat_random(uint8_t *buf, size_t n) {
    while (n) {
        ssize_t r = getrandom(buf, n, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            perror("getrandom");
            exit(3);
        }
        buf += r;
        n -= (size_t)r;
    }
}

bool plat_flash_read(void *page, size_t n) {
    FILE *f = fopen(g_flash_path, "rb");
    if (!f) return false;
    size_t got = fread(page, 1, n, f);
    fclose(f);
    return got == n;
}

void plat_flash_write(const void *page, size_t n) {
    /* write a new file and rename it over the old: a page is never half written */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.new", g_flash_path);
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(page, 1, n, f) != n || fclose(f) != 0) {
        perror("flash write");
        exit(3);
    }
    rename(tmp, g_flash_path);
}

static uint32_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

static bool parse_timing(const char *s, fw_timing *t) {
    unsigned v[7];
    if (sscanf(s, "%u,%u,%u,%u,%u,%u,%u", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
        return false;
    if (!v[0] || !v[1] || v[2] <= v[1] || !v[4] || v[4] > 255 || !v[5] || v[5] > 8 || !v[6])
        return false;
    *t = (fw_timing){v[0], v[1], v[2], v[3], (uint8_t)v[4], (uint8_t)v[5], (uint8_t)v[6]};
    return true;
}

int main(int argc, char **argv) {
    const char *serial = "FW-0001", *firmware = "sim-1.0";
    fw_timing timing = FW_DEFAULT_TIMING;
    int ctl_in = -1, ctl_out = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "%s: %s needs a value\n", argv[0], a);
            return 2;
        }
        if (strcmp(a, "--flash") == 0) g_flash_path = v;
        else if (strcmp(a, "--serial") == 0) serial = v;
        else if (strcmp(a, "--firmware") == 0) firmware = v;
        else if (strcmp(a, "--control") == 0) {
            if (sscanf(v, "%d,%d", &ctl_in, &ctl_out) != 2 || ctl_in < 3 || ctl_out < 3) {
                fprintf(stderr, "%s: --control IN,OUT (inherited descriptors)\n", argv[0]);
                return 2;
            }
        }
        else if (strcmp(a, "--timing") == 0) {
            if (!parse_timing(v, &timing)) {
                fprintf(stderr, "%s: --timing R,H,S,A,TRIES,WINDOW,EVERY (ms)\n", argv[0]);
                return 2;
            }
        } else {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], a);
            return 2;
        }
        i++;
    }
    if (!g_flash_path || strlen(serial) > FW_MAX_TEXT || strlen(firmware) > FW_MAX_TEXT ||
        !*serial || !*firmware) {
        fprintf(stderr, "usage: %s --flash FILE [--serial S] [--firmware F] [--timing ...]\n",
                argv[0]);
        return 2;
    }
    bool control = ctl_in >= 0 && fcntl(ctl_in, F_GETFD) != -1 && fcntl(ctl_out, F_GETFD) != -1;
    dev_boot(serial, firmware, &timing, now_ms());
    char line[2048];
    size_t len = 0;
    bool overlong = false;
    for (;;) {
        uint32_t now = now_ms();
        uint32_t wait = dev_wait(now);
        int timeout = wait == UINT32_MAX ? 1000 : (int)(wait > 1000 ? 1000 : wait);
        struct pollfd fds[2] = {{0, POLLIN, 0}, {ctl_in, POLLIN, 0}};
        int n = poll(fds, control ? 2 : 1, timeout);
        if (n < 0 && errno != EINTR) return 3;
        now = now_ms();
        if (n > 0 && fds[0].revents) {
            uint8_t buf[512];
            ssize_t r = read(0, buf, sizeof buf);
            if (r <= 0) return 0; /* the other end is gone */
            dev_wire(buf, (size_t)r, now);
        }
        if (control && n > 0 && fds[1].revents) {
            char buf[512];
            ssize_t r = read(ctl_in, buf, sizeof buf);
            if (r <= 0) {
                control = false;
            } else {
                for (ssize_t i = 0; i < r; i++) {
                    if (buf[i] != '\n') {
                        if (len + 1 < sizeof line) line[len++] = buf[i];
                        else overlong = true;
                        continue;
                    }
                    line[len] = 0;
                    char reply[2048];
                    if (overlong) snprintf(reply, sizeof reply, "err line over %zu bytes", sizeof line - 1);
                    else dev_control(line, reply, sizeof reply, now);
                    len = 0;
                    overlong = false;
                    size_t rl = strlen(reply);
                    reply[rl++] = '\n';
                    if (write(ctl_out, reply, rl) < 0) control = false;
                }
            }
        }
        dev_tick(now_ms());
    }
}
