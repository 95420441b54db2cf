#include "base/base.h"

#include <openssl/evp.h>
#include <stdlib.h>

struct LwMd5 {
  EVP_MD_CTX *ctx;
};

void lw_hex_encode(const unsigned char *bytes, size_t len, char *out)
{
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < len; ++i) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 0xF];
  }
  out[2 * len] = '\0';
}

void lw_md5_hex(const void *data, size_t len, char out[LW_HASH_HEX_LEN + 1])
{
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned digest_len = 0;
  EVP_Digest(data, len, digest, &digest_len, EVP_md5(), NULL);
  lw_hex_encode(digest, digest_len, out);
}

LwMd5 *lw_md5_new(void)
{
  LwMd5 *md5 = malloc(sizeof(*md5));
  if (!md5) {
    return NULL;
  }
  md5->ctx = EVP_MD_CTX_new();
  if (!md5->ctx || !EVP_DigestInit_ex(md5->ctx, EVP_md5(), NULL)) {
    lw_md5_free(md5);
    return NULL;
  }
  return md5;
}

void lw_md5_update(LwMd5 *md5, const void *data, size_t len)
{
  EVP_DigestUpdate(md5->ctx, data, len);
}

void lw_md5_finish(LwMd5 *md5, char out[LW_HASH_HEX_LEN + 1])
{
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned digest_len = 0;
  EVP_DigestFinal_ex(md5->ctx, digest, &digest_len);
  lw_hex_encode(digest, digest_len, out);
}

void lw_md5_free(LwMd5 *md5)
{
  if (md5) {
    EVP_MD_CTX_free(md5->ctx);
    free(md5);
  }
}

struct LwSha256 {
  EVP_MD_CTX *ctx;
};

LwSha256 *lw_sha256_new(void)
{
  LwSha256 *sha = malloc(sizeof(*sha));
  if (!sha) {
    return NULL;
  }
  sha->ctx = EVP_MD_CTX_new();
  if (!sha->ctx || !EVP_DigestInit_ex(sha->ctx, EVP_sha256(), NULL)) {
    lw_sha256_free(sha);
    return NULL;
  }
  return sha;
}

void lw_sha256_update(LwSha256 *sha, const void *data, size_t len)
{
  EVP_DigestUpdate(sha->ctx, data, len);
}

void lw_sha256_finish(LwSha256 *sha, char out[LW_SHA256_HEX_LEN + 1])
{
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  EVP_DigestFinal_ex(sha->ctx, digest, &digest_len);
  lw_hex_encode(digest, digest_len, out);
}

void lw_sha256_free(LwSha256 *sha)
{
  if (sha) {
    EVP_MD_CTX_free(sha->ctx);
    free(sha);
  }
}
