/* What a board gives the device applications: four calls (docs/firmware.md, "Porting"). */
#ifndef FW_PLATFORM_H
#define FW_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Write bytes to the station's link (the UART): may block until they are in the FIFO. */
void plat_wire_write(const uint8_t *data, size_t n);
/* Bytes from the secure random source (a TRNG on a real board). */
void plat_random(uint8_t *buf, size_t n);
/* The flash page: read it whole (false: erased / never written), write it whole. */
bool plat_flash_read(void *page, size_t n);
void plat_flash_write(const void *page, size_t n);

#endif
