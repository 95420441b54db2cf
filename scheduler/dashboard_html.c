#include "scheduler/dashboard_html.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(LwHtml *h, const char *s, size_t n)
{
  if (!h->failed && lw_buf_append(&h->buf, s, n) != LW_OK) {
    h->failed = true;
  }
}

static void put_escaped(LwHtml *h, const char *s)
{
  if (!s) {
    put(h, "-", 1);
    return;
  }
  for (const char *run = s;; ++s) {
    const char *entity = *s == '&'    ? "&amp;"
                         : *s == '<'  ? "&lt;"
                         : *s == '>'  ? "&gt;"
                         : *s == '"'  ? "&quot;"
                         : *s == '\'' ? "&#39;"
                                      : NULL;
    if (entity || !*s) {
      put(h, run, (size_t)(s - run));
      if (!*s) {
        return;
      }
      put(h, entity, strlen(entity));
      run = s + 1;
    }
  }
}

/* One conversion spec (from '%' to its letter) with its argument. */
static const char *convert(LwHtml *h, const char *fmt, va_list *args)
{
  size_t n = strspn(fmt + 1, "0123456789.-+ #lz");
  char spec[16];
  char conv = fmt[1 + n];
  if (n + 3 > sizeof(spec) || !conv) {
    put(h, "?", 1);
    return fmt + 1 + n + (conv ? 1 : 0);
  }
  memcpy(spec, fmt, n + 2);
  spec[n + 2] = '\0';
  char out[64];
  int len = -1;
  bool ll = strstr(spec, "ll") != NULL, l = !ll && strchr(spec, 'l'), z = strchr(spec, 'z');
  if (conv == 's') {
    put_escaped(h, va_arg(*args, const char *));
  } else if (conv == '%') {
    put(h, "%", 1);
  } else if (conv == 'd' || conv == 'i' || conv == 'u') {
    len = ll  ? snprintf(out, sizeof(out), spec, va_arg(*args, long long))
          : l ? snprintf(out, sizeof(out), spec, va_arg(*args, long))
          : z ? snprintf(out, sizeof(out), spec, va_arg(*args, size_t))
              : snprintf(out, sizeof(out), spec, va_arg(*args, int));
  } else if (conv == 'f' || conv == 'g') {
    len = snprintf(out, sizeof(out), spec, va_arg(*args, double));
  } else {
    put(h, "?", 1);
  }
  if (len > 0) {
    put(h, out, (size_t)len < sizeof(out) ? (size_t)len : sizeof(out) - 1);
  }
  return fmt + n + 2;
}

void lw_html(LwHtml *h, const char *fmt, ...)
{
  va_list args;
  va_start(args, fmt);
  while (*fmt) {
    const char *pct = strchr(fmt, '%');
    if (!pct) {
      put(h, fmt, strlen(fmt));
      break;
    }
    put(h, fmt, (size_t)(pct - fmt));
    fmt = convert(h, pct, &args);
  }
  va_end(args);
}

void lw_html_url_part(const char *s, char *out, size_t size)
{
  static const char hex[] = "0123456789ABCDEF";
  size_t j = 0;
  for (; s && *s && j + 4 < size; ++s) {
    unsigned char c = (unsigned char)*s;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        strchr("._~:-", c)) {
      out[j++] = (char)c;
    } else {
      out[j++] = '%';
      out[j++] = hex[c >> 4];
      out[j++] = hex[c & 15];
    }
  }
  out[j] = '\0';
}

/* Small, readable on a phone: there every table row is a card, each cell a
 * line "label: value" (the label is its column's header, data-label), so no
 * column or button is out of sight behind a sideways scroll. */
static const char style[] =
  "body{font:15px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}"
  "header{background:#234;color:#fff;padding:.5em 1em;display:flex;flex-wrap:wrap;gap:.5em 1em;"
  "align-items:center}header a{color:#fff;text-decoration:none;font-weight:600}"
  "header .live{margin-left:auto;font-size:.85em}main{padding:.5em 1em 2em;max-width:70em}"
  "h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}"
  ".scroll{overflow-x:auto}table{border-collapse:collapse;margin:.3em 0;background:#fff}"
  "th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}"
  "td.n,th.n{text-align:right}td a.mono{display:inline-block;min-width:14em}"
  "code,.mono{font-family:ui-monospace,monospace;font-size:.9em;"
  "word-break:break-all}.state-idle{color:#176}.state-harvesting{color:#05a}"
  ".state-error{color:#b00}.state-held{color:#a60}.state-disabled{color:#777}.bad{color:#b00}"
  "form.inline{display:inline}button{font:inherit;padding:.1em .6em}"
  "figure.chart{margin:.3em 0 1em;max-width:40em}figure.chart svg{background:#fff;"
  "border:1px solid #ddd;display:block}figcaption{margin:.2em 0}"
  "dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}dt{font-weight:600}"
  "dd{margin:0;word-break:break-all}"
  "@media(max-width:40em){.scroll{overflow-x:visible}table,tbody,tr,td{display:block}"
  "tr:first-child{display:none}tr{border:1px solid #ddd;margin:.5em 0;padding:.2em .4em;"
  "background:#fff}td{border:0;padding:.1em 0;word-break:break-word}td.n{text-align:left}"
  "td[data-label]::before{content:attr(data-label) \": \";font-weight:600}"
  "td a.mono{min-width:0;display:inline}button{padding:.3em .8em;margin:.2em 0}}";

/* Refreshes <main> every 5 s while "live" is ticked (without reloading the
 * page, so scrolling and a half-typed token stay), keeps the admin token
 * in the browser's storage, copying it into each action's form, and, on a
 * narrow screen, gives each cell its column's header as data-label (the
 * phone's cards). */
static const char script[] =
  "<script>\n"
  "(function(){\n"
  "var live=document.getElementById('live'),tok=document.getElementById('token');\n"
  "if(tok){tok.value=localStorage.getItem('lodwash-token')||'';\n"
  " tok.addEventListener('change',function(){localStorage.setItem('lodwash-token',tok.value);});\n"
  " document.addEventListener('submit',function(e){var f=e.target.querySelector('input[name=token]');\n"
  "  if(f){f.value=tok.value;}});}\n"
  "var narrow=window.matchMedia('(max-width:40em)');\n"
  "function labels(){if(!narrow.matches){return;}\n"
  " document.querySelectorAll('table').forEach(function(t){\n"
  " var head=t.rows[0];if(!head){return;}\n"
  " for(var r=1;r<t.rows.length;++r){for(var i=0;i<t.rows[r].cells.length;++i){\n"
  "  var c=t.rows[r].cells[i];if(!c.dataset.label&&head.cells[i]){c.dataset.label=head.cells[i].textContent;}}}});}\n"
  "labels();narrow.addEventListener('change',labels);\n"
  "setInterval(function(){if(!live||!live.checked){return;}\n"
  " fetch(location.href,{headers:{Accept:'text/html'}}).then(function(r){return r.ok?r.text():null;})\n"
  " .then(function(t){if(!t){return;}var d=new DOMParser().parseFromString(t,'text/html');\n"
  "  var m=d.querySelector('main');if(m){document.querySelector('main').replaceWith(m);labels();}})\n"
  " .catch(function(){});},5000);\n"
  "})();\n"
  "</script>\n";

void lw_html_page_start(LwHtml *h, const char *title, bool actions)
{
  lw_html(h,
          "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
          "<title>lodwash: %s</title><style>",
          title);
  put(h, style, strlen(style));
  lw_html(h, "</style></head><body><header><a href=\"/\">lodwash</a>"
             "<a href=\"/providers\">Providers</a><a href=\"/errors\">Errors</a>"
             "<a href=\"/dead\">Dead jobs</a><a href=\"/metrics\">Metrics</a>");
  if (actions) {
    lw_html(h, "<input id=\"token\" type=\"password\" placeholder=\"admin token\" "
               "autocomplete=\"off\" size=\"12\">");
  }
  lw_html(h,
          "<label class=\"live\"><input type=\"checkbox\" id=\"live\" checked> live</label>"
          "</header>\n<main>\n");
}

void lw_html_page_end(LwHtml *h)
{
  lw_html(h, "</main>\n");
  put(h, script, strlen(script));
  lw_html(h, "</body></html>\n");
}

char *lw_html_finish(LwHtml *h)
{
  if (h->failed) {
    lw_buf_free(&h->buf);
    h->failed = false;
    return NULL;
  }
  char *s = lw_buf_steal(&h->buf);
  return s ? s : strdup("");
}
