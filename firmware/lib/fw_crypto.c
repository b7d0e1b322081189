/* Thin wrappers over Monocypher and HACL* (see fw_crypto.h). */
/* HACL*'s headers use le64toh and friends (glibc: _DEFAULT_SOURCE). */
#define _DEFAULT_SOURCE
#include "fw_crypto.h"

#include <string.h>

#include "Hacl_HKDF.h"
#include "Hacl_Hash_SHA2.h"
#include "monocypher.h"

void fw_sha256(const uint8_t *data, size_t n, uint8_t out[32]) {
    Hacl_Hash_SHA2_hash_256(out, (uint8_t *)data, (uint32_t)n);
}

void fw_hkdf_sha256(const uint8_t *ikm, size_t ikm_len, const uint8_t *salt, size_t salt_len,
                    const uint8_t *info, size_t info_len, uint8_t *okm, size_t okm_len) {
    uint8_t prk[32];
    Hacl_HKDF_extract_sha2_256(prk, (uint8_t *)salt, (uint32_t)salt_len, (uint8_t *)ikm,
                               (uint32_t)ikm_len);
    Hacl_HKDF_expand_sha2_256(okm, prk, 32u, (uint8_t *)info, (uint32_t)info_len,
                              (uint32_t)okm_len);
    crypto_wipe(prk, sizeof prk);
}

static void nonce_of(uint8_t nonce[12], uint32_t counter) {
    memset(nonce, 0, 8);
    nonce[8] = (uint8_t)(counter >> 24);
    nonce[9] = (uint8_t)(counter >> 16);
    nonce[10] = (uint8_t)(counter >> 8);
    nonce[11] = (uint8_t)counter;
}

void fw_aead_seal(const uint8_t key[32], uint32_t counter, const uint8_t *ad, size_t ad_len,
                  const uint8_t *pt, size_t n, uint8_t *ct, uint8_t tag[16]) {
    uint8_t nonce[12];
    nonce_of(nonce, counter);
    crypto_aead_ctx ctx;
    crypto_aead_init_ietf(&ctx, key, nonce);
    crypto_aead_write(&ctx, ct, tag, ad, ad_len, pt, n);
    crypto_wipe(&ctx, sizeof ctx);
}

bool fw_aead_open(const uint8_t key[32], uint32_t counter, const uint8_t *ad, size_t ad_len,
                  const uint8_t *ct, size_t n, const uint8_t tag[16], uint8_t *pt) {
    uint8_t nonce[12];
    nonce_of(nonce, counter);
    crypto_aead_ctx ctx;
    crypto_aead_init_ietf(&ctx, key, nonce);
    int bad = crypto_aead_read(&ctx, pt, tag, ad, ad_len, ct, n);
    crypto_wipe(&ctx, sizeof ctx);
    return bad == 0;
}

void fw_x25519_public(uint8_t pub[32], const uint8_t secret[32]) {
    crypto_x25519_public_key(pub, secret);
}

bool fw_x25519_shared(uint8_t shared[32], const uint8_t secret[32], const uint8_t peer[32]) {
    static const uint8_t zero[32];
    crypto_x25519(shared, secret, peer);
    return crypto_verify32(shared, zero) != 0;
}

void fw_wipe(void *p, size_t n) { crypto_wipe(p, n); }

bool fw_equal(const uint8_t *a, const uint8_t *b, size_t n) {
    return n == 16 ? crypto_verify16(a, b) == 0 : crypto_verify32(a, b) == 0;
}
