#include "archive/archive.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <uchardet/uchardet.h>
#include <unistd.h>

#include "files/files.h"

#define READ_CHUNK (256 * 1024)
#define OUT_CHUNK (256 * 1024)

static const unsigned char REPLACEMENT[3] = {0xEF, 0xBF, 0xBD}; /* U+FFFD */

static void set_name(char *dst, size_t size, const char *src)
{
  snprintf(dst, size, "%s", src);
}

/* ---- step 1 and 2: BOM, else the sample ---- */

static size_t bom_of(const unsigned char *p, size_t n, const char **name)
{
  /* UTF-32LE's BOM starts with UTF-16LE's: test the longer one first. */
  if (n >= 4 && p[0] == 0xFF && p[1] == 0xFE && p[2] == 0 && p[3] == 0) {
    *name = "UTF-32LE";
    return 4;
  }
  if (n >= 4 && p[0] == 0 && p[1] == 0 && p[2] == 0xFE && p[3] == 0xFF) {
    *name = "UTF-32BE";
    return 4;
  }
  if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
    *name = "UTF-8";
    return 3;
  }
  if (n >= 2 && p[0] == 0xFF && p[1] == 0xFE) {
    *name = "UTF-16LE";
    return 2;
  }
  if (n >= 2 && p[0] == 0xFE && p[1] == 0xFF) {
    *name = "UTF-16BE";
    return 2;
  }
  return 0;
}

static bool all_ascii(const unsigned char *p, size_t n)
{
  for (size_t i = 0; i < n; ++i) {
    if (p[i] >= 0x80) {
      return false;
    }
  }
  return true;
}

static bool is_utf8_family(const char *enc)
{
  return !strcmp(enc, "UTF-8") || !strcmp(enc, "ASCII");
}

/* ---- step 3: UTF-8 validation, streaming ---- */

/* Unicode's table of well-formed UTF-8 (Table 3-7) as a streaming check:
 * need = continuation bytes still expected, lo/hi = the next one's range. */
typedef struct {
  int need;
  unsigned char lo, hi;
  bool non_ascii;
} Utf8Check;

/* Checks p[0..n); returns the index of the first byte that makes the input
 * ill-formed, or n when all is well so far. */
static size_t utf8_check(Utf8Check *c, const unsigned char *p, size_t n)
{
  for (size_t i = 0; i < n; ++i) {
    /* Most RDF is ASCII: skip it eight bytes at a time. */
    while (c->need == 0 && n - i >= 8) {
      uint64_t word;
      memcpy(&word, p + i, 8);
      if (word & 0x8080808080808080ULL) {
        break;
      }
      i += 8;
    }
    if (i >= n) {
      break;
    }
    unsigned char b = p[i];
    if (c->need > 0) {
      if (b < c->lo || b > c->hi) {
        return i;
      }
      c->lo = 0x80;
      c->hi = 0xBF;
      --c->need;
      continue;
    }
    if (b < 0x80) {
      continue;
    }
    c->non_ascii = true;
    c->lo = 0x80;
    c->hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      c->need = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      c->need = 2;
      c->lo = b == 0xE0 ? 0xA0 : 0x80;
      c->hi = b == 0xED ? 0x9F : 0xBF;
    } else if (b >= 0xF0 && b <= 0xF4) {
      c->need = 3;
      c->lo = b == 0xF0 ? 0x90 : 0x80;
      c->hi = b == 0xF4 ? 0x8F : 0xBF;
    } else {
      return i;
    }
  }
  return n;
}

/* Counts the well-formed multi-byte sequences and the ill-formed bytes of a
 * sample (an incomplete sequence at its very end is neither). */
static void utf8_tally(const unsigned char *p, size_t n, size_t *valid_mb, size_t *invalid)
{
  Utf8Check c = {0, 0x80, 0xBF, false};
  *valid_mb = *invalid = 0;
  for (size_t i = 0; i < n; ++i) {
    int before = c.need;
    if (utf8_check(&c, p + i, 1) == 0) {
      ++*invalid;
      c.need = 0;
      if (before > 0) {
        --i; /* the byte that broke a sequence may start the next one */
      }
      continue;
    }
    if (c.need == 0 && (before > 0 || p[i] >= 0x80)) {
      ++*valid_mb;
    }
  }
}

/* Mostly well-formed UTF-8 with a few bad bytes is UTF-8 to be repaired, not
 * a legacy encoding: uchardet gives up on UTF-8 at the first bad byte, and
 * Latin-1 text almost never forms valid UTF-8 pairs by chance. */
static bool mostly_utf8(const unsigned char *p, size_t n)
{
  size_t valid_mb, invalid;
  utf8_tally(p, n, &valid_mb, &invalid);
  return valid_mb > 0 && invalid <= valid_mb;
}

/* uchardet's verdict on data, upper-cased into out; "" when it has none. */
static void uchardet_guess(const void *data, size_t len, char *out, size_t size)
{
  out[0] = '\0';
  uchardet_t ud = uchardet_new();
  if (!ud) {
    return;
  }
  if (uchardet_handle_data(ud, data, len) == 0) {
    uchardet_data_end(ud);
    const char *cs = uchardet_get_charset(ud);
    set_name(out, size, cs ? cs : "");
  }
  uchardet_delete(ud);
  for (char *p = out; *p; ++p) {
    *p = (char)toupper((unsigned char)*p);
  }
}

void lw_encoding_detect(const void *data, size_t len, LwEncodingResult *res,
                        size_t *bom_len)
{
  const char *name = NULL;
  *bom_len = bom_of(data, len, &name);
  res->bom = *bom_len > 0;
  if (res->bom) {
    set_name(res->encoding, sizeof(res->encoding), name);
    set_name(res->source, sizeof(res->source), "bom");
    return;
  }
  if (all_ascii(data, len)) {
    set_name(res->encoding, sizeof(res->encoding), "ASCII");
    set_name(res->source, sizeof(res->source), "ascii");
    return;
  }
  if (mostly_utf8(data, len)) {
    set_name(res->encoding, sizeof(res->encoding), "UTF-8");
    set_name(res->source, sizeof(res->source), "utf8");
    return;
  }
  uchardet_guess(data, len, res->encoding, sizeof(res->encoding));
  if (res->encoding[0]) {
    set_name(res->source, sizeof(res->source), "uchardet");
  } else {
    set_name(res->encoding, sizeof(res->encoding), "UTF-8");
    set_name(res->source, sizeof(res->source), "default");
  }
}

/* Scans in from its current position to the end. Returns the offset (from
 * the start of the file) of the first ill-formed byte, or -1 if the rest is
 * valid UTF-8. Sets *non_ascii. */
static LwStatus utf8_scan(FILE *in, long long *bad_at, bool *non_ascii, unsigned char *buf,
                          LwError *err)
{
  Utf8Check c = {0, 0x80, 0xBF, false};
  long long pos = ftello(in);
  size_t n;
  *bad_at = -1;
  while ((n = fread(buf, 1, READ_CHUNK, in)) > 0) {
    size_t i = utf8_check(&c, buf, n);
    if (i < n) {
      *bad_at = pos + (long long)i;
      break;
    }
    pos += (long long)n;
  }
  if (ferror(in)) {
    return lw_error_set(err, LW_ERR_IO, "read error: %s", strerror(errno));
  }
  if (*bad_at < 0 && c.need > 0) {
    *bad_at = pos; /* truncated sequence at the end */
  }
  *non_ascii = c.non_ascii;
  return LW_OK;
}

/* ---- step 4: recoding with iconv ---- */

/* The name iconv gets for a detected encoding. */
static const char *iconv_name(const char *enc)
{
  if (!strcmp(enc, "ISO-8859-1") || !strcmp(enc, "ASCII")) {
    return !strcmp(enc, "ASCII") ? "UTF-8" : "WINDOWS-1252";
  }
  return enc;
}

/* Bytes to skip over an invalid sequence: one code unit. */
static size_t unit_size(const char *from)
{
  if (!strncmp(from, "UTF-32", 6)) {
    return 4;
  }
  if (!strncmp(from, "UTF-16", 6)) {
    return 2;
  }
  return 1;
}

typedef struct {
  FILE *out;
  char *buf;
  size_t used;
  uint64_t *bytes_out;
  LwContentCounter *counter;
} OutBuf;

static LwStatus out_flush(OutBuf *o, LwError *err)
{
  if (o->used && fwrite(o->buf, 1, o->used, o->out) != o->used) {
    return lw_error_set(err, LW_ERR_IO, "write error: %s", strerror(errno));
  }
  if (o->counter) {
    lw_content_counter_update(o->counter, o->buf, o->used);
  }
  *o->bytes_out += o->used;
  o->used = 0;
  return LW_OK;
}

static LwStatus out_replacement(OutBuf *o, uint64_t *replaced, LwError *err)
{
  if (OUT_CHUNK - o->used < sizeof(REPLACEMENT)) {
    LW_TRY(out_flush(o, err));
  }
  memcpy(o->buf + o->used, REPLACEMENT, sizeof(REPLACEMENT));
  o->used += sizeof(REPLACEMENT);
  ++*replaced;
  return LW_OK;
}

/* Converts in[0..*len) as far as it can; leaves an incomplete tail in place
 * (moved to the front) and sets *len to its size. */
static LwStatus convert_chunk(iconv_t cd, size_t unit, char *in, size_t *len, OutBuf *o,
                              uint64_t *replaced, LwError *err)
{
  char *ip = in;
  size_t left = *len;
  while (left > 0) {
    char *op = o->buf + o->used;
    size_t room = OUT_CHUNK - o->used;
    size_t r = iconv(cd, &ip, &left, &op, &room);
    o->used = OUT_CHUNK - room;
    if (r != (size_t)-1) {
      break;
    }
    if (errno == E2BIG) {
      LW_TRY(out_flush(o, err));
    } else if (errno == EILSEQ) {
      size_t skip = unit < left ? unit : left;
      ip += skip;
      left -= skip;
      LW_TRY(out_replacement(o, replaced, err));
    } else if (errno == EINVAL) {
      break; /* incomplete sequence: wait for more input */
    } else {
      return lw_error_set(err, LW_ERR_INTERNAL, "iconv: %s", strerror(errno));
    }
  }
  memmove(in, ip, left);
  *len = left;
  return LW_OK;
}

static LwStatus out_bytes(OutBuf *o, const unsigned char *p, size_t n, LwError *err)
{
  while (n > 0) {
    if (o->used == OUT_CHUNK) {
      LW_TRY(out_flush(o, err));
    }
    size_t room = OUT_CHUNK - o->used;
    size_t take = n < room ? n : room;
    memcpy(o->buf + o->used, p, take);
    o->used += take;
    p += take;
    n -= take;
  }
  return LW_OK;
}

/* UTF-8 to UTF-8, each maximal ill-formed subpart replaced by U+FFFD (the
 * Unicode standard's best practice, 3.9). Not iconv: glibc's UTF-8 decoder
 * lets 5- and 6-byte forms and code points above U+10FFFF through. */
static LwStatus repair_utf8(FILE *in, OutBuf *o, uint64_t *replaced, LwError *err)
{
  unsigned char *buf = malloc(READ_CHUNK);
  if (!buf) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  Utf8Check c = {0, 0x80, 0xBF, false};
  unsigned char seq[4];
  size_t seq_len = 0;
  LwStatus st = LW_OK;
  size_t n;
  while (!st && (n = fread(buf, 1, READ_CHUNK, in)) > 0) {
    size_t i = 0;
    while (!st && i < n) {
      unsigned char b = buf[i];
      if (c.need == 0 && b < 0x80) {
        size_t j = i + 1;
        while (j < n && buf[j] < 0x80) {
          ++j;
        }
        st = out_bytes(o, buf + i, j - i, err); /* an ASCII run in one copy */
        i = j;
      } else if (c.need == 0) {
        if (utf8_check(&c, &b, 1) == 0) {
          st = out_replacement(o, replaced, err); /* cannot start a sequence */
        } else {
          seq[0] = b;
          seq_len = 1;
        }
        ++i;
      } else if (b >= c.lo && b <= c.hi) {
        seq[seq_len++] = b;
        utf8_check(&c, &b, 1);
        if (c.need == 0) {
          st = out_bytes(o, seq, seq_len, err);
        }
        ++i;
      } else {
        /* The sequence so far is one maximal subpart; b is looked at
         * again as a start. */
        c.need = 0;
        st = out_replacement(o, replaced, err);
      }
    }
  }
  if (!st && ferror(in)) {
    st = lw_error_set(err, LW_ERR_IO, "read error: %s", strerror(errno));
  }
  if (!st && c.need > 0) {
    st = out_replacement(o, replaced, err); /* cut off at the end */
  }
  free(buf);
  return st;
}

static LwStatus recode_utf8(FILE *in, FILE *out, LwContentCounter *counter,
                            uint64_t *replaced, uint64_t *bytes_out, LwError *err)
{
  OutBuf o = {out, malloc(OUT_CHUNK), 0, bytes_out, counter};
  if (!o.buf) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwStatus st = repair_utf8(in, &o, replaced, err);
  if (!st) {
    st = out_flush(&o, err);
  }
  free(o.buf);
  return st;
}

LwStatus lw_encoding_recode(FILE *in, const char *from, FILE *out,
                            LwContentCounter *counter, uint64_t *replaced,
                            uint64_t *bytes_out, LwError *err)
{
  if (!strcmp(from, "UTF-8")) {
    return recode_utf8(in, out, counter, replaced, bytes_out, err);
  }
  iconv_t cd = iconv_open("UTF-8", from);
  if (cd == (iconv_t)-1) {
    return lw_error_set(err, LW_ERR_FORMAT, "cannot recode from %s: %s", from,
                        strerror(errno));
  }
  size_t unit = unit_size(from);
  char *inbuf = malloc(READ_CHUNK);
  OutBuf o = {out, malloc(OUT_CHUNK), 0, bytes_out, counter};
  LwStatus st = LW_OK;
  if (!inbuf || !o.buf) {
    st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    goto done;
  }
  size_t have = 0;
  for (;;) {
    size_t n = fread(inbuf + have, 1, READ_CHUNK - have, in);
    if (n == 0) {
      break;
    }
    have += n;
    if ((st = convert_chunk(cd, unit, inbuf, &have, &o, replaced, err))) {
      goto done;
    }
  }
  if (ferror(in)) {
    st = lw_error_set(err, LW_ERR_IO, "read error: %s", strerror(errno));
    goto done;
  }
  if (have > 0 && (st = out_replacement(&o, replaced, err))) {
    goto done; /* a truncated sequence at the very end */
  }
  /* Flush the converter's shift state (stateful encodings like ISO-2022). */
  char *op = o.buf + o.used;
  size_t room = OUT_CHUNK - o.used;
  if (room < 16 && (st = out_flush(&o, err))) {
    goto done;
  }
  op = o.buf + o.used;
  room = OUT_CHUNK - o.used;
  iconv(cd, NULL, NULL, &op, &room);
  o.used = OUT_CHUNK - room;
  st = out_flush(&o, err);
done:
  free(inbuf);
  free(o.buf);
  iconv_close(cd);
  return st;
}

/* ---- putting it together ---- */

static LwStatus recode_file(const char *data_dir, FILE *in, long bom_len, const char *from,
                            const char *out_path, LwEncodingResult *res, LwError *err)
{
  char tmp[4096];
  FILE *out = NULL;
  LW_TRY(lw_store_tmpfile(data_dir, tmp, sizeof(tmp), &out, err));
  LwStatus st = LW_OK;
  if (fseeko(in, bom_len, SEEK_SET) != 0) {
    st = lw_error_set(err, LW_ERR_IO, "seek: %s", strerror(errno));
  }
  LwContentCounter *counter = lw_content_counter_new();
  if (!st && !counter) {
    st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  if (!st) {
    st = lw_encoding_recode(in, from, out, counter, &res->replaced, &res->bytes_out, err);
  }
  if (counter) {
    lw_content_counter_finish(counter, &res->content);
    lw_content_counter_free(counter);
  }
  if (fclose(out) != 0 && !st) {
    st = lw_error_set(err, LW_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
  }
  if (!st) {
    st = lw_store_commit(tmp, out_path, err);
  }
  if (st) {
    unlink(tmp);
    memset(&res->content, 0, sizeof(res->content));
    return st;
  }
  res->recoded = true;
  return LW_OK;
}

static bool iconv_knows(const char *name)
{
  if (!strcmp(name, "UTF-8")) {
    return true;
  }
  iconv_t cd = iconv_open("UTF-8", name);
  if (cd == (iconv_t)-1) {
    return false;
  }
  iconv_close(cd);
  return true;
}

/* A second look for a file whose sample was ASCII but which is not UTF-8:
 * uchardet on the bytes from shortly before the first invalid one. */
static void redetect_at(FILE *in, long long bad_at, unsigned char *buf,
                        LwEncodingResult *res)
{
  long long from = bad_at > 1024 ? bad_at - 1024 : 0;
  if (fseeko(in, from, SEEK_SET) != 0) {
    return;
  }
  size_t n = fread(buf, 1, LW_ENCODING_SAMPLE, in);
  if (mostly_utf8(buf, n)) {
    return;
  }
  char guess[LW_ENCODING_NAME_MAX];
  uchardet_guess(buf, n, guess, sizeof(guess));
  if (guess[0] && !is_utf8_family(guess)) {
    set_name(res->encoding, sizeof(res->encoding), guess);
    set_name(res->source, sizeof(res->source), "uchardet");
  }
}

static LwStatus settle_open(const char *data_dir, FILE *in, const char *out_path,
                            LwEncodingResult *res, unsigned char *buf, LwError *err)
{
  size_t n = fread(buf, 1, LW_ENCODING_SAMPLE, in);
  if (ferror(in)) {
    return lw_error_set(err, LW_ERR_IO, "read error: %s", strerror(errno));
  }
  size_t bom_len = 0;
  lw_encoding_detect(buf, n, res, &bom_len);
  if (is_utf8_family(res->encoding)) {
    if (fseeko(in, (off_t)bom_len, SEEK_SET) != 0) {
      return lw_error_set(err, LW_ERR_IO, "seek: %s", strerror(errno));
    }
    long long bad_at = -1;
    bool non_ascii = false;
    LW_TRY(utf8_scan(in, &bad_at, &non_ascii, buf, err));
    if (bad_at < 0 && !res->bom) {
      if (non_ascii) {
        set_name(res->encoding, sizeof(res->encoding), "UTF-8");
      }
      return LW_OK; /* nothing to do */
    }
    if (bad_at >= 0 && !strcmp(res->source, "ascii")) {
      redetect_at(in, bad_at, buf, res);
    }
    if (!strcmp(res->encoding, "ASCII") && (bad_at >= 0 || non_ascii)) {
      /* Not ASCII after all, and no better verdict: UTF-8 with repairs. */
      set_name(res->encoding, sizeof(res->encoding), "UTF-8");
    }
  }
  if (!iconv_knows(iconv_name(res->encoding))) {
    /* A detector's name iconv does not know: repair as UTF-8 rather than
     * fail the file (source says so). */
    set_name(res->encoding, sizeof(res->encoding), "UTF-8");
    set_name(res->source, sizeof(res->source), "fallback");
  }
  return recode_file(data_dir, in, (long)bom_len, iconv_name(res->encoding), out_path, res,
                     err);
}

LwStatus lw_encoding_settle(const char *data_dir, const char *in_path, const char *out_path,
                            LwEncodingResult *res, LwError *err)
{
  memset(res, 0, sizeof(*res));
  FILE *in = fopen(in_path, "rb");
  if (!in) {
    return lw_error_set(err, LW_ERR_IO, "cannot open %s: %s", in_path, strerror(errno));
  }
  unsigned char *buf = malloc(READ_CHUNK);
  LwStatus st = buf ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  if (!st) {
    st = settle_open(data_dir, in, out_path, res, buf, err);
  }
  if (!st && fseeko(in, 0, SEEK_END) == 0) {
    res->bytes_in = (uint64_t)ftello(in);
  }
  if (!st && !res->recoded) {
    res->bytes_out = res->bytes_in;
  }
  free(buf);
  fclose(in);
  return st;
}
