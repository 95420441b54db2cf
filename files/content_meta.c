#include "files/files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct LwContentCounter {
  LwMd5 *md5;
  LwSha256 *sha256;
  uint64_t bytes;
  uint64_t chars;
  uint64_t lf_all; /* every '\n', CRLF ones included */
  uint64_t crlf;
  uint64_t lone_cr;
  unsigned char last; /* last byte fed (valid when bytes > 0) */
  int pending_cr;     /* the last byte was '\r': CR or the start of CRLF */
};

LwContentCounter *lw_content_counter_new(void)
{
  LwContentCounter *c = calloc(1, sizeof(*c));
  if (!c) {
    return NULL;
  }
  c->md5 = lw_md5_new();
  c->sha256 = lw_sha256_new();
  if (!c->md5 || !c->sha256) {
    lw_content_counter_free(c);
    return NULL;
  }
  return c;
}

/* Sums the eight byte lanes of a (each at most 255). */
static uint64_t lane_sum(uint64_t a)
{
  const uint64_t m = 0x00FF00FF00FF00FFull;
  uint64_t t = (a & m) + ((a >> 8) & m);
  return (t * 0x0001000100010001ull) >> 48;
}

/* Counts UTF-8 continuation bytes (10xxxxxx) and '\n' eight bytes at a time
 * (SWAR): with MD5 this is the whole cost of the counter, and a byte loop
 * was slower than MD5 itself at -O2. Per-lane counters are flushed every
 * 255 words so they cannot overflow. */
static void count_simple(const unsigned char *p, size_t n, uint64_t *chars, uint64_t *lfs)
{
  const uint64_t hi = 0x8080808080808080ull;
  const uint64_t lo7 = 0x7F7F7F7F7F7F7F7Full;
  const uint64_t nl = 0x0A0A0A0A0A0A0A0Aull;
  uint64_t cont = 0;
  uint64_t lf = 0;
  size_t i = 0;
  while (n - i >= 8) {
    size_t words = (n - i) / 8;
    if (words > 255) {
      words = 255;
    }
    uint64_t acc_cont = 0;
    uint64_t acc_lf = 0;
    for (size_t w = 0; w < words; ++w, i += 8) {
      uint64_t x;
      memcpy(&x, p + i, 8);
      acc_cont += (x & ~(x << 1) & hi) >> 7;          /* bit 7 set, bit 6 clear */
      uint64_t y = x ^ nl;                            /* '\n' bytes become 0 */
      acc_lf += (~(((y & lo7) + lo7) | y) & hi) >> 7; /* exact zero-byte test */
    }
    cont += lane_sum(acc_cont);
    lf += lane_sum(acc_lf);
  }
  for (; i < n; ++i) {
    cont += (p[i] & 0xC0) == 0x80;
    lf += p[i] == '\n';
  }
  *chars += n - cont;
  *lfs += lf;
}

void lw_content_counter_update(LwContentCounter *c, const void *data, size_t len)
{
  if (len == 0) {
    return;
  }
  const unsigned char *p = data;
  lw_md5_update(c->md5, p, len);
  lw_sha256_update(c->sha256, p, len);
  count_simple(p, len, &c->chars, &c->lf_all);
  if (c->pending_cr) {
    if (p[0] == '\n') {
      c->crlf++;
    } else {
      c->lone_cr++;
    }
    c->pending_cr = 0;
  }
  /* CRs are rare in most data: find them with memchr. */
  const unsigned char *end = p + len;
  const unsigned char *q = p;
  while ((q = memchr(q, '\r', (size_t)(end - q))) != NULL) {
    if (q + 1 == end) {
      c->pending_cr = 1;
      break;
    }
    if (q[1] == '\n') {
      c->crlf++;
    } else {
      c->lone_cr++;
    }
    ++q;
  }
  c->bytes += len;
  c->last = p[len - 1];
}

uint64_t lw_content_counter_bytes(const LwContentCounter *c)
{
  return c->bytes;
}

void lw_content_counter_finish(LwContentCounter *c, LwContentMeta *out)
{
  memset(out, 0, sizeof(*out));
  if (c->pending_cr) {
    c->lone_cr++;
    c->pending_cr = 0;
  }
  lw_md5_finish(c->md5, out->hash);
  lw_sha256_finish(c->sha256, out->sha256);
  out->number_of_bytes = c->bytes;
  out->number_of_chars = c->chars;
  out->crlf = c->crlf;
  out->cr = c->lone_cr;
  out->lf = c->lf_all - c->crlf;
  uint64_t terminators = out->lf + out->crlf + out->cr;
  out->number_of_lines = terminators;
  if (c->bytes > 0 && c->last != '\n' && c->last != '\r') {
    out->number_of_lines++;
  }
  int kinds = (out->lf > 0) + (out->crlf > 0) + (out->cr > 0);
  if (kinds == 0) {
    out->newline = LW_NEWLINE_NONE;
  } else if (kinds > 1) {
    out->newline = LW_NEWLINE_MIXED;
  } else {
    out->newline = out->lf ? LW_NEWLINE_LF : out->crlf ? LW_NEWLINE_CRLF : LW_NEWLINE_CR;
  }
}

void lw_content_counter_free(LwContentCounter *c)
{
  if (!c) {
    return;
  }
  lw_md5_free(c->md5);
  lw_sha256_free(c->sha256);
  free(c);
}

const char *lw_newline_name(LwNewline newline)
{
  switch (newline) {
  case LW_NEWLINE_LF:
    return "LF";
  case LW_NEWLINE_CRLF:
    return "CRLF";
  case LW_NEWLINE_CR:
    return "CR";
  case LW_NEWLINE_MIXED:
    return "mixed";
  case LW_NEWLINE_NONE:
    break;
  }
  return "none";
}

json_t *lw_content_meta_json(const LwContentMeta *m)
{
  json_t *j = json_pack("{s:s, s:s, s:I, s:I}", "hash", m->hash, "sha256", m->sha256,
                        "number_of_bytes", (json_int_t)m->number_of_bytes,
                        "number_of_lines", (json_int_t)m->number_of_lines);
  /* what most dumps would repeat stays out (files.h: its absence says it) */
  if (j && m->newline != LW_NEWLINE_LF) {
    json_object_set_new(j, "newline", json_string(lw_newline_name(m->newline)));
  }
  if (j && m->number_of_chars != m->number_of_bytes) {
    json_object_set_new(j, "number_of_chars", json_integer((json_int_t)m->number_of_chars));
  }
  return j;
}

LwStatus lw_content_meta_file(const char *path, LwContentMeta *out, LwError *err)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    return lw_error_set(err, LW_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  }
  LwContentCounter *c = lw_content_counter_new();
  unsigned char *buf = malloc(1 << 16);
  if (!c || !buf) {
    fclose(f);
    free(buf);
    lw_content_counter_free(c);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  size_t n;
  while ((n = fread(buf, 1, 1 << 16, f)) > 0) {
    lw_content_counter_update(c, buf, n);
  }
  int failed = ferror(f);
  fclose(f);
  free(buf);
  if (failed) {
    lw_content_counter_free(c);
    return lw_error_set(err, LW_ERR_IO, "cannot read %s", path);
  }
  lw_content_counter_finish(c, out);
  lw_content_counter_free(c);
  return LW_OK;
}
