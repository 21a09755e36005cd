# SPDX-License-Identifier: GPL-2.0-or-later
"""What the report tests assert of a page in a real browser (headless
Chromium, chromium.py): what a reader would notice at once, on a laptop
and on a phone. Each check names the page and what went wrong."""
import os

from harness import check
import chromium

# Every figure, every plot, and what would make the page hard to read.
FIGURES = """(() => {
  const figures = [...document.querySelectorAll('figure')];
  const plots = [...document.querySelectorAll('svg.plot')];
  return {
    figures: figures.length,
    ids: figures.map(f => f.id),
    without_svg: figures.filter(f => !f.querySelector('svg')).map(f => f.id),
    plots: plots.length,
    tiny: plots.filter(s => s.getBoundingClientRect().width < 200).map(s => s.id),
    // the data area is the clipped group: a plot with nothing in it shows only axes
    empty: plots.filter(s => {
      const data = s.querySelector('g[clip-path]');
      return !data || data.childElementCount === 0;
    }).map(s => s.id),
    texts: document.querySelectorAll('svg.plot text').length,
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
    title: document.title,
    sections: [...document.querySelectorAll('section')].map(s => s.id),
    text: document.body.innerText,
  };
})()"""

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844, "mobile": True}


def look(binary, page, screen, shots=None, name="page"):
    """Open the page on a screen; check it loaded cleanly and is not blank.
    Returns what FIGURES saw, with the screenshot of its top."""
    url = "file://" + os.path.abspath(page)
    browser = chromium.Browser(binary)
    try:
        browser.open(url, width=screen["width"], height=screen["height"], scale=1,
                     mobile=screen.get("mobile", False))
        problems = browser.problems(url)
        check(not problems, f"{name} ({screen['width']} px): the browser complained: {problems}")
        seen = browser.evaluate(FIGURES)
        top = browser.screenshot({"x": 0, "y": 0, "width": screen["width"],
                                  "height": screen["height"]})
        inked, colours = chromium.ink(top, step=2 if screen.get("mobile") else 4)
        check(inked > 0.02 and colours > 4,
              f"{name} ({screen['width']} px): the screenshot looks blank "
              f"({inked:.3f} inked, {colours} colours)")
        seen["pdf"] = browser.pdf() if not screen.get("mobile") else None
        if shots:
            os.makedirs(shots, exist_ok=True)
            with open(os.path.join(shots, f"{name}-{screen['width']}.png"), "wb") as f:
                f.write(top)
    finally:
        browser.close()
    check(not seen["without_svg"], f"{name}: figures without an <svg>: {seen['without_svg']}")
    check(not seen["tiny"], f"{name} ({screen['width']} px): plots drawn too small: "
                            f"{seen['tiny']}")
    check(not seen["empty"], f"{name}: plots with nothing drawn: {seen['empty']}")
    check(seen["texts"] >= 8 * seen["plots"], f"{name}: plots without text labels")
    # plots fit the screen; a wide table scrolls in its own box, never the page
    check(seen["width"] <= screen["width"] + 1,
          f"{name}: the page is {seen['width']} px wide on a {screen['width']} px screen")
    return seen


def svg_files(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith(".svg"))
