#!/usr/bin/env python3
"""html_dom.py - read what headless Chromium made of mediascan's HTML report (its --dump-dom
output) and its --screenshot PNG, for the end-to-end tests. Standard library only.

  html_dom.py files DOM          damaged-files rows: path TAB file-offset TAB length TAB lost
  html_dom.py meta DOM           damaged-metadata rows: owner TAB what TAB offset TAB length
  html_dom.py cell DOM DEV OFF   the map cell of device DEV holding byte OFF:
                                 class TAB start TAB end TAB its title (newlines as ' | ')
  html_dom.py elements DOM       one line per element name found, with its count
  html_dom.py title DOM          the document's <title>
  html_dom.py passes DOM         passes rows: pass TAB result TAB found TAB cleared
  html_dom.py png PNG            WIDTH TAB HEIGHT TAB distinct colours TAB share of the commonest
"""
import struct
import sys
import zlib
from html.parser import HTMLParser


class Dom(HTMLParser):
    """Tables by id (rows of cell texts), map rects (attributes and title), element counts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables = {}
        self.rects = []
        self.counts = {}
        self.title = ""
        self.in_svg = 0
        self.table = None
        self.row = None
        self.cell = None
        self.rect = None
        self.map_dev = None
        self.in_title = False
        self.in_head_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.counts[tag] = self.counts.get(tag, 0) + 1
        if tag == "table":
            self.table = a.get("id")
            if self.table:
                self.tables.setdefault(self.table, [])
        elif tag == "tr" and self.table:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        elif tag == "br" and self.cell is not None:
            self.cell += "\n"
        elif tag == "svg":
            self.in_svg += 1
            if "data-bytes-per-cell" in a:
                self.map_dev = int(a.get("data-device", "0"))
        elif tag == "rect" and self.map_dev is not None and "data-start" in a:
            self.rect = {"dev": self.map_dev, "class": a.get("class", ""),
                         "start": int(a["data-start"]), "end": int(a["data-end"]),
                         "title": ""}
        elif tag == "title":
            if self.rect is not None:
                self.in_title = True
            elif not self.in_svg:
                self.in_head_title = True

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag == "tr" and self.row is not None:
            if self.table and self.row:
                self.tables[self.table].append(self.row)
            self.row = None
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "svg":
            self.in_svg -= 1
            self.map_dev = None
        elif tag == "rect" and self.rect is not None:
            self.rects.append(self.rect)
            self.rect = None
        elif tag == "title":
            self.in_title = self.in_head_title = False

    def handle_data(self, data):
        if self.in_title and self.rect is not None:
            self.rect["title"] += data
        elif self.in_head_title:
            self.title += data
        elif self.cell is not None:
            self.cell += data


def load(path):
    d = Dom()
    with open(path, encoding="utf-8", errors="strict") as f:
        d.feed(f.read())
    return d


def body_rows(d, table):
    rows = d.tables.get(table, [])
    return rows[1:] if rows else []		# the header row


def png_pixels(path):
    """Return width, height and the RGB(A) rows of an 8-bit non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise SystemExit("unsupported PNG (depth %d type %d)" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "png":
        w, h, bpp, rows = png_pixels(path)
        counts = {}
        for r in rows:
            for i in range(0, len(r), bpp):
                px = r[i:i + 3]
                counts[px] = counts.get(px, 0) + 1
        print("%d\t%d\t%d\t%.3f" % (w, h, len(counts), max(counts.values()) / (w * h)))
        return
    d = load(path)
    if cmd == "files":
        for r in body_rows(d, "damaged-files"):
            if len(r) >= 5:
                print("\t".join([r[0], r[2], r[3], r[4]]))
    elif cmd == "meta":
        for r in body_rows(d, "damaged-metadata"):
            if len(r) >= 5:
                print("\t".join([r[0], r[1], r[3], r[4]]))
    elif cmd == "cell":
        dev, off = int(sys.argv[3]), int(sys.argv[4])
        for r in d.rects:
            if r["dev"] == dev and r["start"] <= off < r["end"]:
                print("\t".join([r["class"], str(r["start"]), str(r["end"]),
                                 r["title"].replace("\n", " | ")]))
                break
    elif cmd == "elements":
        for k in sorted(d.counts):
            print("%s\t%d" % (k, d.counts[k]))
    elif cmd == "title":
        print(d.title)
    elif cmd == "passes":
        for r in body_rows(d, "passes"):
            if len(r) >= 9:
                print("\t".join([r[0], r[3], r[7], r[8]]))
    else:
        raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    main()
