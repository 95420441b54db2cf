/* BCP 47 well-formedness: RFC 5646's own examples (appendix A) and the
 * shapes it refuses. */
#include "rdf/rdf.h"
#include "tests/support/check.h"

static const char *const valid[] = {
  /* simple language subtags */
  "de",
  "fr",
  "ja",
  "i-enochian",
  "EN",
  "en",
  "haw",
  "tlh",
  /* language + script */
  "zh-Hant",
  "zh-Hans",
  "sr-Cyrl",
  "sr-Latn",
  /* extended language subtags and their primary language equivalents */
  "zh-cmn-Hans-CN",
  "cmn-Hans-CN",
  "zh-yue-HK",
  "yue-HK",
  /* language-script-region */
  "zh-Hans-CN",
  "sr-Latn-RS",
  /* language-variant */
  "sl-rozaj",
  "sl-rozaj-biske",
  "sl-nedis",
  /* language-region-variant */
  "de-CH-1901",
  "sl-IT-nedis",
  /* language-script-region-variant */
  "hy-Latn-IT-arevela",
  /* language-region */
  "de-DE",
  "en-US",
  "es-419",
  "en-GB",
  "pt-BR",
  /* private use subtags */
  "de-CH-x-phonebk",
  "az-Arab-x-AZE-derbend",
  /* private use registry values */
  "x-whatever",
  "qaa-Qaaa-QM-x-southern",
  "de-Qaaa",
  "sr-Latn-QM",
  "sr-Qaaa-RS",
  /* tags that use extensions */
  "en-US-u-islamcal",
  "zh-CN-a-myext-x-private",
  "en-a-myext-b-another",
  /* well-formed though not valid */
  "ar-a-aaa-b-bbb-a-ccc" /* duplicate singleton: see below */,
  /* grandfathered, both kinds, any case */
  "i-klingon",
  "I-KLINGON",
  "en-GB-oed",
  "zh-min-nan",
  "art-lojban",
  "sgn-BE-FR",
  "no-bok",
  "cel-gaulish",
  "i-default",
  /* other shapes */
  "abcd",
  "abcdefgh",
  "en-1234",
  "en-12345678",
  "en-abcde",
  "x-a",
  "x-12345678",
  "en-x-1",
  "en-Latn-US-valencia-u-ca-gregory-t-ja-x-priv",
  "zh-yue-min-HK",
  "en-Latn",
  "EN-latn-us",
  "de-1996",
  "de-DE-1996",
};

static const char *const invalid[] = {
  "",
  "-",
  "e",
  "en-",
  "-en",
  "en--US",
  "en_US",
  "en US",
  "en.US",
  "abcdefghi",
  "123",
  "1en",
  "en-US-",
  "x",
  "x-",
  "en-x",
  "en-x-",
  "en-a",
  "en-a-x-foo",
  "en-a-b-foo",
  "en-US-a",
  "en-x-123456789",
  "en-abcdefghi",
  "en-123456789",
  "en-Latn-Latn",
  "en-US-Latn",
  "en-US-US",
  "en-1234-US",
  "abcd-ext",
  "zh-cmn-yue-min-wuu",
  "de-ä",
  "en-US-a-b",
  "en-a-aaa-a-bbb",
  "en-é",
  "en-Latn-123-abc",
  "en-ab1",
  "de-419-DE",
  "a-DE",
  "en-a1",
  "en-1a2",
  "ru-R",
  "i-notreal",
};

int main(void)
{
  size_t nv = sizeof(valid) / sizeof(valid[0]);
  size_t ni = sizeof(invalid) / sizeof(invalid[0]);
  for (size_t i = 0; i < nv; ++i) {
    /* RFC 5646 2.2.6: a singleton may appear only once; the line above is
     * the one example that must fail. */
    bool expect = strcmp(valid[i], "ar-a-aaa-b-bbb-a-ccc") != 0;
    bool got = lw_langtag_valid(valid[i]);
    lw_test_report(got == expect, __FILE__, __LINE__, "valid tag", valid[i]);
  }
  for (size_t i = 0; i < ni; ++i) {
    lw_test_report(!lw_langtag_valid(invalid[i]), __FILE__, __LINE__, "invalid tag",
                   invalid[i]);
  }
  CHECK(!lw_langtag_valid(NULL));
  /* The length-delimited form does not read past len. */
  CHECK(lw_langtag_valid_n("en-US-garbage", 5));
  CHECK(!lw_langtag_valid_n("en-US", 3));
  CHECK(!lw_langtag_valid_n("en\0US", 5));
  CHECK(lw_langtag_valid_n("i-klingonX", 9));
  printf("%zu valid and %zu invalid vectors\n", nv, ni);
  return lw_test_finish();
}
