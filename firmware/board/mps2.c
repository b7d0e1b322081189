/* The board layer for QEMU's mps2-an385 (Cortex-M3, CMSDK UARTs, SysTick), bare metal.
 * UART0 is the station's link; UART1 the bench control channel (text lines, as the host
 * build's: docs/firmware.md). Before the link starts the bench sends, on UART1:
 *   seed HEX64        entropy for the random generator (this board has no TRNG: below)
 *   timing R,H,S,A,TRIES,WINDOW,EVERY   the link's timers in ms (optional)
 *   boot SERIAL FIRMWARE   provision an erased flash page, then start the application
 * then any control line of the application. "stack" answers the stack's high-water mark.
 *
 * Randomness: a real board reads its TRNG (RP2040 ROSC, STM32 RNG) in plat_random. QEMU's
 * mps2 has none, so this port runs ChaCha20 (Monocypher's) keyed with the 32 bytes the
 * bench hands over from the host's secure random source, a counter per block: a stand-in
 * for the hardware generator that keeps nonces unpredictable to anyone on the line. */
#include <stdint.h>
#include <string.h>

#include "device.h"
#include "monocypher.h"
#include "platform.h"

/* --- the hardware -------------------------------------------------------------------------- */

typedef struct {
    volatile uint32_t data, state, ctrl, intstatus, bauddiv;
} cmsdk_uart;
#define UART0 ((cmsdk_uart *)0x40004000u)
#define UART1 ((cmsdk_uart *)0x40005000u)
#define UART_TX_FULL 1u
#define UART_RX_FULL 2u
#define UART_CTRL_RX_IRQ 8u
#define UART_INT_RX 2u
#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
#define IRQ_UART0_RX 0u /* AN385: UART0 RX is IRQ 0, UART1 RX IRQ 2 */
#define IRQ_UART1_RX 2u
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYSCLK_HZ 25000000u

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end;
extern uint32_t __stack_bottom, __stack_top;

static volatile uint32_t g_ms;

void systick_handler(void) { g_ms++; }

static void uart_init(cmsdk_uart *u) {
    u->bauddiv = 16;
    u->ctrl = 3u | UART_CTRL_RX_IRQ; /* TX and RX enabled; a byte in wakes the core */
}

/* A byte arrived: the interrupt only wakes the main loop from WFI; the loop reads it. */
void uart_rx_handler(void) {
    UART0->intstatus = UART_INT_RX;
    UART1->intstatus = UART_INT_RX;
}

static void uart_put(cmsdk_uart *u, uint8_t c) {
    while (u->state & UART_TX_FULL) {
    }
    u->data = c;
}

static int uart_get(cmsdk_uart *u) {
    if (!(u->state & UART_RX_FULL)) return -1;
    return (int)(u->data & 0xFFu);
}

/* --- the platform calls ------------------------------------------------------------------- */

__attribute__((section(".flashpage"))) static fw_flash g_page;

void plat_wire_write(const uint8_t *data, size_t n) {
    for (size_t i = 0; i < n; i++) uart_put(UART0, data[i]);
}

static uint8_t g_rng_key[32];
static uint64_t g_rng_block;
static bool g_seeded;

void plat_random(uint8_t *buf, size_t n) {
    static const uint8_t nonce[8] = {'d', 's', '-', 'r', 'n', 'g', 0, 0};
    while (n) {
        uint8_t block[64];
        crypto_chacha20_djb(block, NULL, sizeof block, g_rng_key, nonce, g_rng_block++);
        size_t k = n < sizeof block ? n : sizeof block;
        memcpy(buf, block, k);
        crypto_wipe(block, sizeof block);
        buf += k;
        n -= k;
    }
}

bool plat_flash_read(void *page, size_t n) {
    if (n > sizeof g_page) return false;
    memcpy(page, &g_page, n);
    return true;
}

void plat_flash_write(const void *page, size_t n) {
    /* A real MCU erases the sector and programs it (or keeps a log of pages to spread the
     * wear: docs/firmware.md); QEMU's flash here is RAM. */
    if (n <= sizeof g_page) memcpy(&g_page, page, n);
}

/* --- the stack's high-water mark -------------------------------------------------------- */

#define PAINT 0xC5C5C5C5u

static void paint_stack(void) {
    uint32_t *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (uint32_t *p = &__stack_bottom; p < sp - 16; p++) *p = PAINT;
}

static uint32_t stack_used(void) {
    uint32_t *p = &__stack_bottom;
    while (p < &__stack_top && *p == PAINT) p++;
    return (uint32_t)((uintptr_t)&__stack_top - (uintptr_t)p);
}

/* --- the bench's control lines and the main loop --------------------------------------------- */

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void reply_line(const char *s) {
    while (*s) uart_put(UART1, (uint8_t)*s++);
    uart_put(UART1, '\n');
}

/* Time in SysTick ticks of the 25 MHz processor clock (40 ns); under QEMU's -icount
 * shift=0 one instruction is 1 ns of virtual time, so 40 instructions a tick. */
uint64_t board_ticks(void) {
    uint32_t ms, cvr;
    do {
        ms = g_ms;
        cvr = SYST_CVR;
    } while (ms != g_ms);
    return (uint64_t)ms * (SYSCLK_HZ / 1000u) + (SYSCLK_HZ / 1000u - 1u - cvr);
}

void board_paint_stack(void) {
    uint32_t *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (uint32_t *p = &__stack_bottom; p < sp - 16; p++) *p = 0xC5C5C5C5u;
}

uint32_t board_stack_used(void) {
    uint32_t *p = &__stack_bottom;
    while (p < &__stack_top && *p == 0xC5C5C5C5u) p++;
    return (uint32_t)((uintptr_t)&__stack_top - (uintptr_t)p);
}

static bool g_booted;
static fw_timing g_timing;

static void board_line(const char *line) {
    static char reply[2048]; /* the bench channel's, not the link's: kept off the stack */
    if (strncmp(line, "seed ", 5) == 0) {
        const char *h = line + 5;
        for (int i = 0; i < 32; i++) {
            int a = hexval(h[2 * i]), b = a < 0 ? -1 : hexval(h[2 * i + 1]);
            if (b < 0) {
                reply_line("err seed takes 64 hex digits");
                return;
            }
            g_rng_key[i] = (uint8_t)(a << 4 | b);
        }
        g_seeded = true;
        reply_line("ok");
    } else if (strncmp(line, "timing ", 7) == 0) {
        char spaced[96];
        size_t k = 0;
        for (const char *c = line + 7; *c && k + 1 < sizeof spaced; c++)
            spaced[k++] = *c == ',' ? ' ' : *c;
        spaced[k] = 0;
        const char *s = spaced;
        long v[7];
        for (int i = 0; i < 7; i++) {
            if (!txt_num(&s, &v[i]) || v[i] < 0 || v[i] > 100000) {
                reply_line("err timing R,H,S,A,TRIES,WINDOW,EVERY");
                return;
            }
        }
        g_timing = (fw_timing){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3],
                               (uint8_t)v[4], (uint8_t)v[5], (uint8_t)v[6]};
        reply_line("ok");
    } else if (strncmp(line, "boot ", 5) == 0) {
        const char *s = line + 5;
        char serial[FW_MAX_TEXT + 1], firmware[FW_MAX_TEXT + 1];
        if (!g_seeded || !txt_word(&s, serial, sizeof serial) ||
            !txt_word(&s, firmware, sizeof firmware)) {
            reply_line("err boot SERIAL FIRMWARE, after seed");
            return;
        }
        dev_boot(serial, firmware, &g_timing, g_ms);
        g_booted = true;
        reply_line("ok");
    } else if (strcmp(line, "stack") == 0) {
        reply[0] = 0;
        txt_put(reply, sizeof reply, "ok ");
        txt_uint(reply, sizeof reply, stack_used());
        reply_line(reply);
    } else if (!g_booted) {
        reply_line("err not booted");
    } else {
        dev_control(line, reply, sizeof reply, g_ms);
        reply_line(reply);
    }
}

void board_init(void) {
    uart_init(UART0);
    uart_init(UART1);
    SYST_RVR = SYSCLK_HZ / 1000u - 1u;
    SYST_CVR = 0;
    SYST_CSR = 7u;
}

__attribute__((weak)) int main(void) {
    uart_init(UART0);
    uart_init(UART1);
    SYST_RVR = SYSCLK_HZ / 1000u - 1u;
    SYST_CVR = 0;
    SYST_CSR = 7u; /* processor clock, interrupt, enabled */
    NVIC_ISER0 = (1u << IRQ_UART0_RX) | (1u << IRQ_UART1_RX);
    g_timing = FW_DEFAULT_TIMING;
    static char line[1536];
    size_t len = 0;
    for (;;) {
        int c;
        while ((c = uart_get(UART1)) >= 0) {
            if (c == '\n') {
                line[len] = 0;
                board_line(line);
                len = 0;
            } else if (len + 1 < sizeof line) {
                line[len++] = (char)c;
            }
        }
        if (!g_booted) {
            __asm__ volatile("wfi"); /* SysTick wakes the core every millisecond */
            continue;
        }
        uint8_t buf[64];
        size_t n = 0;
        while (n < sizeof buf && (c = uart_get(UART0)) >= 0) buf[n++] = (uint8_t)c;
        if (n) dev_wire(buf, n, g_ms);
        dev_tick(g_ms);
        /* Nothing came in: sleep until the next interrupt (SysTick, at most 1 ms) instead
         * of spinning; a UART byte waits in its FIFO (QEMU holds the rest back). */
        if (!n && !(UART1->state & UART_RX_FULL)) __asm__ volatile("wfi");
    }
}

/* --- start-up ---------------------------------------------------------------------------------- */

void reset_handler(void) {
    uint32_t *src = &__data_load, *dst = &__data_start;
    while (dst < &__data_end) *dst++ = *src++;
    for (dst = &__bss_start; dst < &__bss_end; dst++) *dst = 0;
    paint_stack();
    main();
    for (;;) {
    }
}

static void hang(void) {
    for (;;) {
    }
}

typedef struct {
    uint32_t *stack_top;
    void (*handler[15 + 4])(void); /* the 15 exceptions, then IRQ 0..3 */
} vector_table;

__attribute__((section(".vectors"), used)) static const vector_table vectors = {
    &__stack_top,
    {reset_handler, hang, hang, hang, hang, hang, 0, 0, 0, 0, hang, hang, 0, hang,
     systick_handler, uart_rx_handler, hang, uart_rx_handler, hang},
};
