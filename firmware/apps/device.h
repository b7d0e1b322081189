/* A device application on the link library: the flash page, the link's callbacks, and the
 * bench control channel (text lines: docs/firmware.md, "Control channel"). */
#ifndef FW_DEVICE_H
#define FW_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_link.h"

#define FW_FLASH_MAGIC 0x44534657u /* "DSFW" */
#define FW_FLASH_LAYOUT 1u

/* What one kind of device adds (apps/shoe.c, apps/panel.c). */
typedef struct {
    uint8_t kind;
    size_t state_size; /* bytes of app state kept in the flash page */
    /* A message from the station; false: unusable (rejected). */
    bool (*message)(uint8_t type, const uint8_t *p, size_t n);
    /* A control command of this kind ("deal", "press 3"...): writes the reply text after
     * "ok " (or returns false with an error text). */
    bool (*command)(const char *cmd, const char *args, char *reply, size_t cap);
    /* key=value pairs of this kind for "status". */
    void (*status)(char *out, size_t cap);
    /* Whether pairing may go ahead (the button held, and for a panel its key turned). */
    bool (*consent)(bool button);
    /* The state after a power-up (from flash or erased). */
    void (*boot)(bool erased);
} fw_app;

extern const fw_app FW_APP; /* the one application this image runs */

/* Each application's calls (apps/shoe.c, apps/panel.c), by name for the fuzz harness. */
bool shoe_message(uint8_t type, const uint8_t *p, size_t n);
bool shoe_command(const char *cmd, const char *args, char *reply, size_t cap);
void shoe_status(char *out, size_t cap);
bool shoe_consent(bool button);
void shoe_boot(bool erased);
bool panel_message(uint8_t type, const uint8_t *p, size_t n);
bool panel_command(const char *cmd, const char *args, char *reply, size_t cap);
void panel_status(char *out, size_t cap);
bool panel_consent(bool button);
void panel_boot(bool erased);

/* The flash page: identity (written at manufacture), the pairing secret, app state. */
typedef struct {
    uint32_t magic;
    uint16_t layout;
    uint8_t paired;
    uint8_t pad;
    char serial[FW_MAX_TEXT + 1];
    char firmware[FW_MAX_TEXT + 1];
    char station[FW_MAX_TEXT + 1];
    uint8_t secret[32];
    uint32_t app_state[256]; /* the application's own state (1 KB) */
} fw_flash;

extern fw_flash g_flash;
extern fw_link g_link;

/* Power-up: read the flash page (or provision it with serial and firmware when erased). */
void dev_boot(const char *serial, const char *firmware, const fw_timing *t, uint32_t now);
void dev_wire(const uint8_t *data, size_t n, uint32_t now);
void dev_tick(uint32_t now);
uint32_t dev_wait(uint32_t now);
/* One control line (no newline); the reply line (no newline) goes into reply. */
void dev_control(const char *line, char *reply, size_t cap, uint32_t now);
/* For applications: send a report; save the flash page. */
bool dev_report(uint8_t type, const uint8_t *p, size_t n);
void dev_save(void);
uint32_t dev_now(void);

/* Text helpers for replies. */
void txt_put(char *out, size_t cap, const char *s);
void txt_uint(char *out, size_t cap, uint32_t v);
/* Parse an unsigned/signed decimal at *s (skipping spaces); false if none. */
bool txt_num(const char **s, long *v);
/* The next word at *s into w (cap bytes); false if none. */
bool txt_word(const char **s, char *w, size_t cap);

#endif
