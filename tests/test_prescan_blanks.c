/* The Turtle pre-scanner's white space (rdf_readers/rdf_prescan.c): runs of
 * blanks and line ends between terms are copied as they are, whatever the
 * blocks, and the line and column it reports after them are the input's
 * (a bad byte after indentation, tabs, CRLF and empty lines); blanks right
 * after what the scanner holds back (a language tag, "true") still let it
 * decide as before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"

typedef struct {
  unsigned long line, column;
  int n;
} Seen;

static void on_error(void *handle, unsigned long line, unsigned long column,
                     const char *message)
{
  (void)message;
  Seen *seen = handle;
  if (seen->n++ == 0) {
    seen->line = line;
    seen->column = column;
  }
}

/* The scanner's output for doc fed in two blocks cut at cut. */
static char *scan(const char *doc, size_t cut, Seen *seen)
{
  LwScanner s;
  LwBuf out = LW_BUF_INIT;
  lw_scanner_init(&s, true, 64, 1024, on_error, seen);
  CHECK_INT_EQ(lw_scanner_feed(&s, doc, cut, &out), LW_SCAN_OK);
  CHECK_INT_EQ(lw_scanner_feed(&s, doc + cut, strlen(doc) - cut, &out), LW_SCAN_OK);
  CHECK_INT_EQ(lw_scanner_finish(&s, &out), LW_SCAN_OK);
  return out.data;
}

static void test_copied(void)
{
  const char *doc = "@prefix ex: <http://ex.org/> .\r\n\r\n"
                    "ex:a\n    ex:b \"x\"@en-us ;\n\t\tex:c true .\n"
                    "  ex:d ex:e ( 1 2 ) .   \n";
  for (size_t cut = 0; cut <= strlen(doc); ++cut) {
    Seen seen = {0, 0, 0};
    char *got = scan(doc, cut, &seen);
    CHECK_STR_EQ(got, doc);
    CHECK_INT_EQ(seen.n, 0);
    free(got);
  }
}

static void test_position(void)
{
  /* the bad byte: line 4, after two spaces, a tab and "<s> <p> \"" */
  const char *doc = "<a> <b> <c> .\r\n\n<d> <e> <f> .\n  \t<s> <p> \"\xff\" .\n";
  for (size_t cut = 0; cut <= strlen(doc); ++cut) {
    Seen seen = {0, 0, 0};
    free(scan(doc, cut, &seen));
    CHECK_INT_EQ(seen.n, 1);
    CHECK_INT_EQ(seen.line, 4);
    CHECK_INT_EQ(seen.column, 13);
  }
}

int main(void)
{
  test_copied();
  test_position();
  return lw_test_finish();
}
