#!/usr/bin/python3
"""label_boxes.py SVG... - check the point labels of gtool's scatter charts.

Every <text> inside <g class="labels"> is a label.  Its box comes from x, y,
font-size, text-anchor and the number of characters, each CHAR_EM times the
font size wide (GT_SVG_CHAR_EM in analysis/gt_svg.h, the estimate the
placement code uses), from the font size above the baseline to a quarter of
it below.  Fails (exit 1, one line per fault) when two labels' boxes meet or
a box leaves the drawing; prints "N labels" per file otherwise.
"""
import sys
import xml.etree.ElementTree as ET

CHAR_EM = 0.6
NS = "{http://www.w3.org/2000/svg}"


def boxes(root):
    out = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "labels":
            continue
        for t in g.iter(NS + "text"):
            x, y = float(t.get("x")), float(t.get("y"))
            size = float(t.get("font-size"))
            w = CHAR_EM * size * len(t.text or "")
            anchor = t.get("text-anchor", "start")
            x0 = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
            out.append((t.text, x0, y - size, x0 + w, y + 0.25 * size))
    return out


def check(path):
    root = ET.parse(path).getroot()
    width, height = float(root.get("width")), float(root.get("height"))
    b = boxes(root)
    bad = 0
    for i, (t, x0, y0, x1, y1) in enumerate(b):
        if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
            print(f"{path}: '{t}' leaves the {width:g}x{height:g} drawing")
            bad = 1
        for u, a0, b0, a1, b1 in b[i + 1:]:
            if x0 < a1 and a0 < x1 and y0 < b1 and b0 < y1:
                print(f"{path}: '{t}' and '{u}' overlap")
                bad = 1
    if not bad:
        print(f"{path}: {len(b)} labels")
    return bad


if __name__ == "__main__":
    sys.exit(max(check(p) for p in sys.argv[1:]) if sys.argv[1:] else 2)
