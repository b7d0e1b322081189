/* The firmware's cryptography, all from vendored libraries (firmware/third_party):
 * Monocypher 4 (X25519, IETF ChaCha20-Poly1305) and HACL* (SHA-256, HKDF-SHA-256).
 * Nothing here is a primitive of its own: these are thin calls with the protocol's
 * nonce layout (docs/protocol.md section 4b). */
#ifndef FW_CRYPTO_H
#define FW_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FW_KEY 32u
#define FW_TAG 16u
#define FW_NONCE 16u   /* a handshake nonce */
#define FW_SEAL_OVERHEAD 20u /* counter (4) + tag (16) */

void fw_sha256(const uint8_t *data, size_t n, uint8_t out[32]);
/* HKDF-SHA-256 (RFC 5869): okm_len <= 255 * 32. */
void fw_hkdf_sha256(const uint8_t *ikm, size_t ikm_len, const uint8_t *salt, size_t salt_len,
                    const uint8_t *info, size_t info_len, uint8_t *okm, size_t okm_len);

/* Seal: the 12-byte AEAD nonce is 8 zero bytes then the counter, big-endian (the same four
 * bytes as the frame's counter field). ct may equal pt. */
void fw_aead_seal(const uint8_t key[32], uint32_t counter, const uint8_t *ad, size_t ad_len,
                  const uint8_t *pt, size_t n, uint8_t *ct, uint8_t tag[16]);
/* Returns false (and leaves pt unspecified) when the tag does not verify. */
bool fw_aead_open(const uint8_t key[32], uint32_t counter, const uint8_t *ad, size_t ad_len,
                  const uint8_t *ct, size_t n, const uint8_t tag[16], uint8_t *pt);

/* X25519: public key of a secret scalar, and the shared secret. Returns false for an
 * all-zero shared secret (a low-order public key). */
void fw_x25519_public(uint8_t pub[32], const uint8_t secret[32]);
bool fw_x25519_shared(uint8_t shared[32], const uint8_t secret[32], const uint8_t peer[32]);

void fw_wipe(void *p, size_t n);
/* Constant-time equality of n bytes (n 16 or 32). */
bool fw_equal(const uint8_t *a, const uint8_t *b, size_t n);

#endif
