#include "tests/support/rapper.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"

bool lw_test_rapper_available(void)
{
  return system("rapper --version > /dev/null 2>&1") == 0;
}

static void shell_quote(const char *s, LwBuf *out)
{
  lw_buf_append_char(out, '\'');
  for (; *s; ++s) {
    if (*s == '\'') {
      lw_buf_append_str(out, "'\\''");
    } else {
      lw_buf_append_char(out, *s);
    }
  }
  lw_buf_append_char(out, '\'');
}

bool lw_test_rapper_read(const char *path, const char *syntax, const char *base,
                         LwTestGraph *g)
{
  /* rapper's N-Quads come to us on fd 3 (our pipe); its messages go to
   * grep, and any message at all makes the status 9 */
  LwBuf cmd = LW_BUF_INIT, out = LW_BUF_INIT;
  lw_buf_appendf(&cmd, "{ timeout 30 rapper -q -i %s -o nquads ", syntax);
  shell_quote(path, &cmd);
  lw_buf_append_char(&cmd, ' ');
  shell_quote(base, &cmd);
  lw_buf_append_str(&cmd, " 2>&1 >&3 3>&- | grep -q . && exit 9; exit 0; } 3>&1");
  FILE *p = popen(cmd.data, "r");
  char block[65536];
  size_t got;
  while (p && (got = fread(block, 1, sizeof(block), p)) > 0) {
    lw_buf_append(&out, block, got);
  }
  int status = p ? pclose(p) : -1;
  char why[256];
  bool ok = status == 0 &&
            lw_test_graph_parse(g, out.data ? out.data : "", out.len, why, sizeof(why));
  lw_buf_free(&cmd);
  lw_buf_free(&out);
  return ok;
}
