/* Streaming content metadata: the `content` record must not depend on how
 * the bytes were chunked, and must match hand-counted figures. */
#include "files/files.h"
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  const char *text;
  uint64_t chars;
  uint64_t lines;
  LwNewline newline;
} Vector;

static void meta_of(const char *text, size_t len, size_t chunk, LwContentMeta *out)
{
  LwContentCounter *c = lw_content_counter_new();
  for (size_t off = 0; off < len; off += chunk) {
    size_t n = len - off < chunk ? len - off : chunk;
    lw_content_counter_update(c, text + off, n);
  }
  lw_content_counter_finish(c, out);
  lw_content_counter_free(c);
}

static void check_vectors(void)
{
  static const Vector vectors[] = {
    {"", 0, 0, LW_NEWLINE_NONE},
    {"a", 1, 1, LW_NEWLINE_NONE},
    {"a\n", 2, 1, LW_NEWLINE_LF},
    {"a\nb", 3, 2, LW_NEWLINE_LF},
    {"\n\n\n", 3, 3, LW_NEWLINE_LF},
    {"a\r\nb\r\n", 6, 2, LW_NEWLINE_CRLF},
    {"a\rb\r", 4, 2, LW_NEWLINE_CR},
    {"a\nb\r\nc\rd", 8, 4, LW_NEWLINE_MIXED},
    {"\r\r\n", 3, 2, LW_NEWLINE_MIXED},
    {"\r", 1, 1, LW_NEWLINE_CR},
    {"\xc3\xa9t\xc3\xa9\n", 4, 1, LW_NEWLINE_LF},                 /* été */
    {"\xe2\x82\xac \xf0\x9f\x98\x80\r\n", 5, 1, LW_NEWLINE_CRLF}, /* € 😀 */
  };
  for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); ++i) {
    const Vector *v = &vectors[i];
    size_t len = strlen(v->text);
    LwContentMeta whole;
    meta_of(v->text, len, len ? len : 1, &whole);
    CHECK_INT_EQ(whole.number_of_bytes, len);
    CHECK_INT_EQ(whole.number_of_chars, v->chars);
    CHECK_INT_EQ(whole.number_of_lines, v->lines);
    CHECK_STR_EQ(lw_newline_name(whole.newline), lw_newline_name(v->newline));
    char md5[LW_HASH_HEX_LEN + 1];
    lw_md5_hex(v->text, len, md5);
    CHECK_STR_EQ(whole.hash, md5);
    /* Every chunk size gives the same figures: a CRLF split across chunks
     * counts once. */
    for (size_t chunk = 1; chunk < len; ++chunk) {
      LwContentMeta part;
      meta_of(v->text, len, chunk, &part);
      CHECK(part.number_of_lines == whole.number_of_lines &&
            part.newline == whole.newline && part.crlf == whole.crlf &&
            part.number_of_chars == whole.number_of_chars &&
            !strcmp(part.hash, whole.hash));
    }
  }
}

static void check_known_md5_and_json(void)
{
  LwContentMeta m;
  meta_of("abc", 3, 1, &m);
  CHECK_STR_EQ(m.hash, "900150983cd24fb0d6963f7d28e17f72");
  /* FIPS 180-2's example of "abc" */
  CHECK_STR_EQ(m.sha256,
               "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  json_t *j = lw_content_meta_json(&m);
  char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
  /* as many characters as bytes: number_of_chars left out */
  CHECK_STR_EQ(s, "{\"hash\":\"900150983cd24fb0d6963f7d28e17f72\",\"newline\":"
                  "\"none\",\"number_of_bytes\":3,"
                  "\"number_of_lines\":1,\"sha256\":"
                  "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"}");
  free(s);
  json_decref(j);
  /* LF left out; a character of two bytes: number_of_chars said */
  meta_of("\xc3\xa9\n", 3, 1, &m);
  j = lw_content_meta_json(&m);
  CHECK(!json_object_get(j, "newline"));
  CHECK_INT_EQ(json_integer_value(json_object_get(j, "number_of_chars")), 2);
  CHECK_INT_EQ(json_integer_value(json_object_get(j, "number_of_bytes")), 3);
  json_decref(j);
  meta_of("a\r\n", 3, 1, &m);
  j = lw_content_meta_json(&m);
  CHECK_STR_EQ(json_string_value(json_object_get(j, "newline")), "CRLF");
  CHECK(!json_object_get(j, "number_of_chars"));
  json_decref(j);
}

static void check_file(void)
{
  char *dir = lw_test_tmpdir();
  char path[1024];
  snprintf(path, sizeof(path), "%s/data.nt", dir);
  FILE *f = fopen(path, "wb");
  /* 200,000 CRLF lines: more than one read buffer. */
  for (int i = 0; i < 200000; ++i) {
    fprintf(f, "<s%d> <p> \"o\" .\r\n", i);
  }
  long size = ftell(f);
  fclose(f);
  LwContentMeta m;
  LwError err;
  CHECK_INT_EQ(lw_content_meta_file(path, &m, &err), LW_OK);
  CHECK_INT_EQ(m.number_of_bytes, size);
  CHECK_INT_EQ(m.number_of_lines, 200000);
  CHECK_INT_EQ(m.newline, LW_NEWLINE_CRLF);
  CHECK_INT_EQ(lw_content_meta_file("/nonexistent/x", &m, &err), LW_ERR_IO);
  CHECK(strstr(err.message, "/nonexistent/x") != NULL);
  lw_test_rmtree(dir);
  free(dir);
}

int main(void)
{
  check_vectors();
  check_known_md5_and_json();
  check_file();
  lw_content_counter_free(NULL);
  CHECK(1); /* free(NULL) is safe */
  return lw_test_finish();
}
