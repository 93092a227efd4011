#!/usr/bin/env python3
"""Makes the HTML report's assets into C strings: embed.py OUT.c CSS JS...

The styles become html_asset_css, the scripts (in the order given) html_asset_js.  Bytes
are written as octal escapes where they are not plain printable ASCII, so any file content
stays a valid C literal; the binary carries them (it stays static, the page offline)."""
import sys


def literal(data):
    out = ['"']
    col = 0
    for b in data:
        if b == 0x0A:
            out.append('\\n"\n"')
            col = 0
            continue
        if b in (0x22, 0x5C):
            out.append('\\' + chr(b))
        elif 0x20 <= b < 0x7F and b != 0x3F:  # '?' escaped: no trigraphs
            out.append(chr(b))
        else:
            out.append('\\%03o' % b)
        col += 1
    out.append('"')
    return ''.join(out)


def main():
    out, css, scripts = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(css, 'rb') as f:
        css_data = f.read()
    js = b''
    for path in scripts:
        with open(path, 'rb') as f:
            js += f.read() + b'\n'
    if b'</' in css_data or b'</' in js:
        sys.exit('embed.py: "</" in an asset would end its <style> or <script> element')
    with open(out, 'w') as f:
        f.write('/* Made by lib/report/html/embed.py from %s: do not edit. */\n'
                % ', '.join(p.split('/')[-1] for p in [css] + scripts))
        f.write('#include "report/html_assets.h"\n\n')
        f.write('const char html_asset_css[] =\n%s;\n\n' % literal(css_data))
        f.write('const char html_asset_js[] =\n%s;\n' % literal(js))


main()
