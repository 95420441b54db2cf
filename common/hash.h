/*
 * MD5 hashing (OpenSSL EVP) as lowercase hex: seed hashes, content hashes.
 */
#ifndef LW_HASH_H
#define LW_HASH_H

#include <stddef.h>

#define LW_HASH_HEX_LEN 32

typedef struct LwMd5 LwMd5;

/* len bytes as 2 * len lowercase hex digits and a NUL in out. */
void lw_hex_encode(const unsigned char *bytes, size_t len, char *out);

/* MD5 of data as 32 lowercase hex digits and a NUL in out. */
void lw_md5_hex(const void *data, size_t len, char out[LW_HASH_HEX_LEN + 1]);

/* A streaming MD5: new, update any number of times, finish, free.
 * lw_md5_new returns NULL when out of memory. lw_md5_free(NULL) is safe. */
LwMd5 *lw_md5_new(void);
void lw_md5_update(LwMd5 *md5, const void *data, size_t len);
void lw_md5_finish(LwMd5 *md5, char out[LW_HASH_HEX_LEN + 1]);
void lw_md5_free(LwMd5 *md5);

#endif
