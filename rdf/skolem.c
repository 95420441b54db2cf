#include "rdf/rdf.h"

#include <stdbool.h>
#include <string.h>

#define GENID "/.well-known/genid/"

static bool unreserved(unsigned char c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.' || c == '_' || c == '~';
}

static LwStatus append_encoded(LwBuf *out, const char *s, size_t len)
{
  static const char hex[] = "0123456789ABCDEF";
  LW_TRY(lw_buf_reserve(out, 3 * len));
  char *p = out->data + out->len;
  for (size_t i = 0; i < len; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (unreserved(c)) {
      *p++ = (char)c;
    } else {
      *p++ = '%';
      *p++ = hex[c >> 4];
      *p++ = hex[c & 15];
    }
  }
  out->len = (size_t)(p - out->data);
  out->data[out->len] = '\0';
  return LW_OK;
}

LwStatus lw_skolem_append_iri(LwBuf *out, const char *base, const char *seed_hash,
                              const char *label, size_t label_len)
{
  size_t base_len = strlen(base);
  while (base_len && base[base_len - 1] == '/') {
    --base_len;
  }
  LW_TRY(lw_buf_append(out, base, base_len));
  LW_TRY(lw_buf_append(out, GENID, strlen(GENID)));
  LW_TRY(append_encoded(out, seed_hash, strlen(seed_hash)));
  LW_TRY(lw_buf_append_char(out, '/'));
  return append_encoded(out, label, label_len);
}

void lw_skolem_init(LwSkolem *sk, const char *base, const char *seed_hash)
{
  size_t n = strlen(base);
  *sk = (LwSkolem){.base = base,
                   .seed_hash = seed_hash,
                   .canonical = lw_span_iri_plain(base, n, true) == n};
}

void lw_skolem_free(LwSkolem *sk)
{
  if (sk) {
    for (int i = 0; i < 3; ++i) {
      lw_buf_free(&sk->iris[i]);
    }
  }
}

static LwStatus skolem_term(LwSkolem *sk, LwBuf *buf, LwTerm *t)
{
  if (t->type != LW_TERM_BLANK) {
    return LW_OK;
  }
  lw_buf_reset(buf);
  LW_TRY(lw_skolem_append_iri(buf, sk->base, sk->seed_hash, t->value, t->len));
  *t = (LwTerm){LW_TERM_IRI, buf->data, buf->len, NULL, NULL, sk->canonical};
  return LW_OK;
}

LwStatus lw_skolem_quad(LwSkolem *sk, const LwQuad *in, LwQuad *out)
{
  *out = *in;
  LW_TRY(skolem_term(sk, &sk->iris[0], &out->subject));
  LW_TRY(skolem_term(sk, &sk->iris[1], &out->object));
  return skolem_term(sk, &sk->iris[2], &out->graph);
}
