/* RFC 3986: the normalization examples of §6.2.2, the resolution examples of
 * §5.4, and seed hashes as `lodwash hash` prints them. */
#include "base/base.h"

#include <stdlib.h>

#include "tests/support/check.h"

static void check_normalize(const char *in, const char *expected)
{
  char *out = lw_uri_normalize(in);
  CHECK_STR_EQ(out, expected);
  free(out);
}

static void check_resolve(const char *base, const char *ref, const char *expected)
{
  char *out = lw_uri_resolve(base, ref);
  if (!out || strcmp(out, expected)) {
    fprintf(stderr, "resolve <%s> against <%s>\n", ref, base);
  }
  CHECK_STR_EQ(out, expected);
  free(out);
}

static void test_normalize(void)
{
  /* §6.2.2.1 case, §6.2.2.2 percent-encoding, §6.2.2.3 dot segments */
  check_normalize("HTTP://www.Example.com/", "http://www.example.com/");
  check_normalize("http://example.com/%7Euser", "http://example.com/~user");
  check_normalize("http://example.com/%7euser", "http://example.com/~user");
  check_normalize("eXAMPLE://a/./b/../b/%63/%7bfoo%7d", "example://a/b/c/%7Bfoo%7D");
  check_normalize("http://a/b/%2fc", "http://a/b/%2Fc");
  check_normalize("http://a/%41%2D%2e%5F%7E", "http://a/A-._~");
  check_normalize("http://a/b/c/./../../g", "http://a/g");
  check_normalize("http://a/b/%2E%2E/c", "http://a/c");
  /* only the host is lower-cased, not userinfo, path, query or fragment */
  check_normalize("http://User@Host.EXAMPLE:8080/P?Q#F",
                  "http://User@host.example:8080/P?Q#F");
  check_normalize("http://[FE80::1]:80/", "http://[fe80::1]:80/");
  /* nothing more: no default-port or empty-path rewriting */
  check_normalize("http://example.com:80", "http://example.com:80");
  check_normalize("http://example.com", "http://example.com");
  /* broken percent-encodings are kept as they are */
  check_normalize("http://a/%zz%4", "http://a/%zz%4");
  /* relative references keep their dot segments */
  check_normalize("../a/%7e", "../a/~");
  /* UTF-8 passes through */
  check_normalize("http://a/caf\xc3\xa9", "http://a/caf\xc3\xa9");
}

static void test_resolve(void)
{
  const char *base = "http://a/b/c/d;p?q";
  static const char *const normal[][2] = {
    {"g:h", "g:h"},
    {"g", "http://a/b/c/g"},
    {"./g", "http://a/b/c/g"},
    {"g/", "http://a/b/c/g/"},
    {"/g", "http://a/g"},
    {"//g", "http://g"},
    {"?y", "http://a/b/c/d;p?y"},
    {"g?y", "http://a/b/c/g?y"},
    {"#s", "http://a/b/c/d;p?q#s"},
    {"g#s", "http://a/b/c/g#s"},
    {"g?y#s", "http://a/b/c/g?y#s"},
    {";x", "http://a/b/c/;x"},
    {"g;x", "http://a/b/c/g;x"},
    {"g;x?y#s", "http://a/b/c/g;x?y#s"},
    {"", "http://a/b/c/d;p?q"},
    {".", "http://a/b/c/"},
    {"./", "http://a/b/c/"},
    {"..", "http://a/b/"},
    {"../", "http://a/b/"},
    {"../g", "http://a/b/g"},
    {"../..", "http://a/"},
    {"../../", "http://a/"},
    {"../../g", "http://a/g"},
  };
  static const char *const abnormal[][2] = {
    {"../../../g", "http://a/g"},
    {"../../../../g", "http://a/g"},
    {"/./g", "http://a/g"},
    {"/../g", "http://a/g"},
    {"g.", "http://a/b/c/g."},
    {".g", "http://a/b/c/.g"},
    {"g..", "http://a/b/c/g.."},
    {"..g", "http://a/b/c/..g"},
    {"./../g", "http://a/b/g"},
    {"./g/.", "http://a/b/c/g/"},
    {"g/./h", "http://a/b/c/g/h"},
    {"g/../h", "http://a/b/c/h"},
    {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
    {"g;x=1/../y", "http://a/b/c/y"},
    {"g?y/./x", "http://a/b/c/g?y/./x"},
    {"g?y/../x", "http://a/b/c/g?y/../x"},
    {"g#s/./x", "http://a/b/c/g#s/./x"},
    {"g#s/../x", "http://a/b/c/g#s/../x"},
    {"http:g", "http:g"},
  };
  for (size_t i = 0; i < sizeof(normal) / sizeof(normal[0]); ++i) {
    check_resolve(base, normal[i][0], normal[i][1]);
  }
  for (size_t i = 0; i < sizeof(abnormal) / sizeof(abnormal[0]); ++i) {
    check_resolve(base, abnormal[i][0], abnormal[i][1]);
  }
  /* a base with an authority and an empty path */
  check_resolve("http://a", "g", "http://a/g");
  /* a fragment-only base keeps its query out of the way */
  check_resolve("http://a/b?q#f", "#g", "http://a/b?q#g");
  /* no base: a relative reference cannot be resolved */
  CHECK(lw_uri_resolve(NULL, "g") == NULL);
  CHECK(lw_uri_resolve("relative/base", "g") == NULL);
}

static void test_hash(void)
{
  char a[33], b[33];
  lw_uri_hash("HTTP://Example.COM/a/./b/%7e", a);
  lw_uri_hash("http://example.com/a/b/~", b);
  CHECK_STR_EQ(a, b);
  /* MD5 of the normalized URI, as `echo -n URI | md5sum` prints it */
  lw_uri_hash("http://example.com/", a);
  CHECK_STR_EQ(a, "a6bf1757fff057f266b697df9cf176fd");
  lw_uri_hash("http://example.com/a", b);
  CHECK(strcmp(a, b) != 0);
}

static void test_split(void)
{
  LwUriParts p;
  lw_uri_split("http://u@h:1/p/q?x=1#f", &p);
  CHECK(p.scheme.len == 4 && !memcmp(p.scheme.ptr, "http", 4));
  CHECK(p.authority.len == 5 && !memcmp(p.authority.ptr, "u@h:1", 5));
  CHECK(p.path.len == 4 && !memcmp(p.path.ptr, "/p/q", 4));
  CHECK(p.query.len == 3 && p.fragment.len == 1);
  lw_uri_split("a/b", &p);
  CHECK(p.scheme.ptr == NULL && p.authority.ptr == NULL && p.query.ptr == NULL);
  lw_uri_split("http://h?", &p);
  CHECK(p.query.ptr != NULL && p.query.len == 0);
  CHECK(lw_uri_is_absolute("urn:x"));
  CHECK(!lw_uri_is_absolute("1http:x"));
  CHECK(!lw_uri_is_absolute("/a:b"));
}

int main(void)
{
  test_normalize();
  test_resolve();
  test_hash();
  test_split();
  return lw_test_finish();
}
