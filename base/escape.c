/*
 * Text from outside made safe to print: control characters escaped (so a
 * newline in a provider's date or a server's error body cannot forge a log
 * line, nor a quote a field of a JSON log), long text cut, and the user info
 * of URLs (passwords) left out.
 */
#include "base/base.h"

#include <stdio.h>
#include <string.h>

/* The escape of byte c, or NULL when c prints as itself. */
static const char *escape_of(unsigned char c, bool quotes, char hex[5])
{
  switch (c) {
  case '\n':
    return "\\n";
  case '\r':
    return "\\r";
  case '\t':
    return "\\t";
  case '\\':
  case '"':
    if (!quotes) {
      return NULL;
    }
    return c == '"' ? "\\\"" : "\\\\";
  default:
    break;
  }
  if (c < 0x20 || c == 0x7f) {
    snprintf(hex, 5, "\\x%02x", c);
    return hex;
  }
  return NULL;
}

static char *escape(const char *s, size_t len, size_t max, bool quotes, char *out,
                    size_t size)
{
  if (!size) {
    return out;
  }
  const char *cut = "...";
  size_t room = size - 1 - strlen(cut); /* a cut text still ends with "..." */
  size_t o = 0;
  size_t i = 0;
  for (; s && i < len && i < max; ++i) {
    char hex[5];
    const char *e = escape_of((unsigned char)s[i], quotes, hex);
    size_t n = e ? strlen(e) : 1;
    if (o + n > room && size > strlen(cut) + 1) {
      break;
    }
    if (e) {
      memcpy(out + o, e, n);
    } else {
      out[o] = s[i];
    }
    o += n;
  }
  if (s && i < len && size > strlen(cut) + 1) {
    memcpy(out + o, cut, strlen(cut));
    o += strlen(cut);
  }
  out[o] = '\0';
  return out;
}

char *lw_escape_text(const char *s, size_t len, size_t max, char *out, size_t size)
{
  return escape(s, len, max, false, out, size);
}

char *lw_escape_quoted(const char *s, size_t max, char *out, size_t size)
{
  return escape(s, s ? strlen(s) : 0, max, true, out, size);
}

char *lw_url_redact(const char *url, char *out, size_t size)
{
  if (!size) {
    return out;
  }
  const char *s = url ? url : "";
  const char *scheme_end = strstr(s, "://");
  const char *authority = scheme_end ? scheme_end + 3 : s;
  const char *end = authority + strcspn(authority, "/?#");
  const char *at = NULL;
  for (const char *p = authority; p < end; ++p) {
    if (*p == '@') {
      at = p; /* the last '@' ends the user info */
    }
  }
  if (!at) {
    snprintf(out, size, "%s", s);
  } else {
    snprintf(out, size, "%.*s%s", (int)(authority - s), s, at + 1);
  }
  return out;
}

/* The end of the authority starting at p: the first character no URL
 * authority holds (a path, query, fragment, space or quote). */
static char *authority_end(char *p)
{
  return p + strcspn(p, "/?# \t\r\n\"'<>()[]{}|\\^`");
}

void lw_redact_userinfo(char *text)
{
  char *p = text;
  while (p && (p = strstr(p, "://"))) {
    char *authority = p + 3;
    char *end = authority_end(authority);
    char *at = NULL;
    for (char *q = authority; q < end; ++q) {
      if (*q == '@') {
        at = q;
      }
    }
    if (at) {
      memmove(authority, at + 1, strlen(at + 1) + 1);
    }
    p = authority;
  }
}
