#!/usr/bin/env python3
"""Generates assets/site/, the static part of the crawlspace demo site.

Run once from anywhere (`python3 assets/generate.py`); the output is committed
and embedded in the binary by src/demo.rs, which also serves the dynamic
routes (calendar trap, redirects, errors, /slow, /weird). The output is a pure
function of this script: no randomness, no clock, so re-running it gives the
same bytes and a clean `git diff`.

What the site holds, and which crawler behaviour each part is there to show:
  /                      home page: links to every section and test page
  /docs/                 6 topics x 8 pages, relative links, a broken link,
                         /docs/manual.pdf (a real one-page PDF),
                         /docs/orphan.html (only in the sitemap)
  /blog/                 96 dated posts /blog/YYYY/MM/slug.html, paginated
                         index, /blog/archive/ by year and month
  /products/             5 categories x 16 item pages, the listings with "add
                         to cart" links (/cart/add?item=..., which the demo
                         rules drop without a record); /products/?sort=...
                         variants (the server ignores the query for files)
  /images/               small valid PNG and GIF files, and a gallery page
  /private/              a staff area the demo rules exclude
  /tmp/                  disallowed by robots.txt (one page allowed back)
  /hidden/               pages reachable only through nofollow links, a
                         noindex page, or a page with an X-Robots-Tag header
  /links/                test pages: broken links, external hosts, terminal
                         escapes, frames and image maps, <base href>,
                         noindex regions, robots meta, redirects and errors
  robots.txt, sitemap.xml  with {{ORIGIN}}, replaced by the server with
                         http://127.0.0.1:PORT when it serves text files
"""

import os
import shutil
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "site")

# Every file written, so the script can report a count.
written = []


def write(path, data):
    """Writes `data` (str or bytes) at the site path `path` (no leading /)."""
    full = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(full, "wb") as f:
        f.write(data)
    written.append(path)


def esc(text):
    """HTML-escapes text; control characters are left alone on purpose."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
    )


NAV = (
    '<nav><a href="/">Home</a> | <a href="/docs/">Docs</a> | '
    '<a href="/blog/">Blog</a> | <a href="/products/">Products</a> | '
    '<a href="/links/">Test pages</a> | <a href="/about.html">About</a></nav>'
)


def page(title, body, head=""):
    """The common page template: one stylesheet, the logo, the nav bar."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="stylesheet" href="/style.css">
{head}</head>
<body>
<header><a href="/"><img src="/images/logo.png" alt="crawlspace demo" width="16" height="16"></a>
{NAV}</header>
<main>
<h1>{title}</h1>
{body}
</main>
<footer><p>crawlspace demo site. Nothing here is real.</p></footer>
</body>
</html>
"""


def ul(items):
    """A list of links from (href, text) pairs."""
    lines = "\n".join(f'<li><a href="{esc(h)}">{esc(t)}</a></li>' for h, t in items)
    return f"<ul>\n{lines}\n</ul>"


WORDS = (
    "crawl queue rule robots sitemap frontier verdict trace filter priority "
    "redirect mirror fetch follow scan host depth weight console pattern "
    "archive index log politeness"
).split()


def prose(seed, sentences=3):
    """Deterministic filler text, different for each seed."""
    out = []
    for s in range(sentences):
        words = [WORDS[(seed * 7 + s * 5 + i * 3) % len(WORDS)] for i in range(9)]
        out.append(" ".join(words).capitalize() + ".")
    return "<p>" + " ".join(out) + "</p>"


# ---------------------------------------------------------------- binaries


def png(width, height, rgb):
    """A valid truecolour PNG of one colour."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * width  # filter type 0, then the pixels
    raw = row * height
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def gif(rgb):
    """A valid 1x1 GIF89a whose single pixel has colour `rgb`."""
    return (
        b"GIF89a"
        + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0)  # screen; 2-colour global table
        + bytes(rgb)
        + b"\x00\x00\x00"
        + b","
        + struct.pack("<HHHHB", 0, 0, 1, 1, 0)  # image descriptor
        # LZW minimum code size 2; codes clear(4), 0, end(5) packed LSB first.
        + b"\x02\x02\x44\x01\x00"
        + b";"
    )


def pdf(title, lines):
    """A valid one-page PDF 1.4 with a correct cross-reference table."""
    text = "BT /F1 18 Tf 72 720 Td (" + title + ") Tj ET\n"
    y = 690
    for line in lines:
        text += f"BT /F1 11 Tf 72 {y} Td ({line}) Tj ET\n"
        y -= 16
    stream = text.encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"endstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title (" + title.encode("latin-1") + b") /Producer (assets/generate.py) >>",
    ]
    out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n".encode()
    out += b"0000000000 65535 f \n"
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    return out


# ---------------------------------------------------------------- sections

DOC_TOPICS = {
    "getting-started": ["install", "first-crawl", "the-console", "demo-site",
                        "config-file", "start-urls", "stopping", "faq"],
    "rules": ["fields", "matchers", "actions", "filters", "priority", "stop",
              "nesting", "negate"],
    "dialects": ["native", "funnelback", "wca", "exalead", "nutch", "webcopy",
                 "wex", "detection"],
    "crawling": ["queues", "politeness", "robots", "sitemaps", "redirects",
                 "errors", "refresh", "traps"],
    "console": ["rules-view", "queues-view", "log-view", "explain-view",
                "keys", "what-if", "rule-health", "undo"],
    "reference": ["cli", "explain", "check", "import", "rules-command",
                  "log-command", "settings", "glossary"],
}


def titled(slug):
    return slug.replace("-", " ").capitalize()


def docs():
    topics = list(DOC_TOPICS)
    write("docs/index.html", page("Documentation", prose(1) + ul(
        [(f"{t}/", titled(t)) for t in topics]
        + [("manual.pdf", "The manual (PDF)")]
    )))
    for ti, topic in enumerate(topics):
        pages = DOC_TOPICS[topic]
        body = prose(10 + ti) + ul([(f"{p}.html", titled(p)) for p in pages])
        body += '<p><a href="../">All documentation</a></p>'
        if topic == "reference":
            body += '<p>Print it: <a href="../manual.pdf">manual.pdf</a></p>'
        write(f"docs/{topic}/index.html", page(f"Docs: {titled(topic)}", body))
        for pi, name in enumerate(pages):
            links = [("./", f"Back to {titled(topic)}")]
            if pi > 0:
                links.append((f"{pages[pi - 1]}.html", "Previous: " + titled(pages[pi - 1])))
            if pi + 1 < len(pages):
                links.append((f"{pages[pi + 1]}.html", "Next: " + titled(pages[pi + 1])))
            other = topics[(ti + 1) % len(topics)]
            links.append((f"../{other}/{DOC_TOPICS[other][pi]}.html",
                          "See also: " + titled(DOC_TOPICS[other][pi])))
            if (topic, name) == ("rules", "filters"):
                # A broken link inside the followed docs: the 404 is logged.
                links.append(("deprecated-syntax.html", "The old syntax (removed)"))
            body = prose(100 + ti * 10 + pi, 4) + ul(links)
            write(f"docs/{topic}/{name}.html",
                  page(f"{titled(name)} — {titled(topic)}", body))
    write("docs/orphan.html", page("An orphan page", "<p>No page links here: "
                                   "the crawler finds it through sitemap.xml only.</p>"))
    write("docs/old.bak", "backup of an old page; robots.txt disallows *.bak\n")
    write("docs/manual.pdf", pdf("crawlspace demo manual", [
        "This PDF is saved but not scanned for links (rule: the manual).",
        "Rules are evaluated in order; the last setting wins.",
        "Filters are vetoes that no later rule can undo.",
    ]))


BLOG_YEARS = [2021, 2022, 2023, 2024]
BLOG_TITLES = [
    "Why the crawler skipped a page", "Weights, not ranks", "Robots.txt, line by line",
    "Calendars are traps", "Sitemaps find orphans", "Redirect chains",
    "Politeness per host", "The last setting wins", "Filters are vetoes",
    "Scanning without saving", "Deferred content-type rules", "Rules from five dialects",
]


def blog():
    posts = []  # (url path, title, year, month)
    for year in BLOG_YEARS:
        for month in range(1, 13):
            for n in range(2):
                i = len(posts)
                title = BLOG_TITLES[i % len(BLOG_TITLES)] + f" ({year}-{month:02d}, part {n + 1})"
                slug = BLOG_TITLES[i % len(BLOG_TITLES)].lower()
                slug = "".join(c if c.isalnum() else "-" for c in slug).strip("-")
                slug = "-".join(filter(None, slug.split("-"))) + f"-{n + 1}"
                posts.append((f"/blog/{year}/{month:02d}/{slug}.html", title, year, month))
    for i, (path, title, year, month) in enumerate(posts):
        links = [(f"/blog/archive/{year}/{month:02d}/", f"More from {year}-{month:02d}"),
                 ("/blog/", "All posts")]
        if i > 0:
            links.append((posts[i - 1][0], "Older: " + posts[i - 1][1]))
        if i + 1 < len(posts):
            links.append((posts[i + 1][0], "Newer: " + posts[i + 1][1]))
        if i % 8 == 0:
            topic = list(DOC_TOPICS)[i % len(DOC_TOPICS)]
            links.append((f"/docs/{topic}/", "Related documentation"))
        if i % 12 == 5:
            links.append(("http://external.invalid/blog/reference.html", "An outside reference"))
        body = f"<p><time>{year}-{month:02d}-{1 + (i % 2) * 14:02d}</time></p>" + prose(
            300 + i, 5) + ul(links)
        write(path[1:], page(title, body))

    newest = list(reversed(posts))
    per_page = 10
    pages = [newest[i:i + per_page] for i in range(0, len(newest), per_page)]
    for n, chunk in enumerate(pages, start=1):
        body = ul([(p[0], p[1]) for p in chunk])
        nav = []
        if n > 1:
            nav.append(("/blog/" if n == 2 else f"/blog/page/{n - 1}.html", "Newer posts"))
        if n < len(pages):
            nav.append((f"/blog/page/{n + 1}.html", "Older posts"))
        nav.append(("/blog/archive/", "Archive"))
        body += ul(nav)
        path = "blog/index.html" if n == 1 else f"blog/page/{n}.html"
        write(path, page("Blog" if n == 1 else f"Blog, page {n}", body))

    write("blog/archive/index.html", page("Blog archive", ul(
        [(f"{y}/", str(y)) for y in BLOG_YEARS])))
    for year in BLOG_YEARS:
        write(f"blog/archive/{year}/index.html", page(f"Archive {year}", ul(
            [(f"{m:02d}/", f"{year}-{m:02d}") for m in range(1, 13)]
            + [("../", "All years")])))
        for month in range(1, 13):
            these = [(p[0], p[1]) for p in posts if p[2] == year and p[3] == month]
            write(f"blog/archive/{year}/{month:02d}/index.html",
                  page(f"Archive {year}-{month:02d}", ul(these + [("../", str(year))])))
    return posts


CATEGORIES = ["widgets", "gadgets", "gizmos", "doohickeys", "sprockets"]
CATEGORY_COLOURS = [(200, 40, 40), (40, 160, 60), (40, 80, 200), (200, 160, 30), (120, 60, 160)]
ADJECTIVES = ["Small", "Large", "Blue", "Red", "Quiet", "Fast", "Shiny", "Plain",
              "Deluxe", "Pocket", "Heavy", "Light", "Round", "Square", "Spare", "Classic"]


def products():
    index_body = prose(2) + ul(
        [(f"{c}/", c.capitalize()) for c in CATEGORIES]
    ) + "<p>Sort: " + " ".join(
        f'<a href="/products/?sort={key}">by {key}</a>' for key in ("name", "price", "newest")
    ) + "</p>"
    write("products/index.html", page("Products", index_body))
    for ci, cat in enumerate(CATEGORIES):
        items = []
        for n in range(1, 17):
            name = f"{ADJECTIVES[(n + ci) % len(ADJECTIVES)]} {cat[:-1]}"
            price = 5 + ((n * 37 + ci * 11) % 95)
            items.append((f"item-{n:02d}.html", name, price))
        body = f'<p><img src="/images/products/{cat}.png" alt="{cat}" width="8" height="8"></p>'
        body += ul([(h, f"{name}, ${price}") for h, name, price in items])
        # Links that change state when fetched, on the listing (whose links
        # the demo rules follow): they drop them without a record.
        body += "<p>Add to cart: " + " ".join(
            f'<a href="/cart/add?item={cat}-{n:02d}">{n}</a>' for n in range(1, 17)
        ) + "</p>"
        # Discontinued: the page is gone, the listing still links to it.
        body += '<p>Discontinued: <a href="item-99.html">the old model</a></p>'
        body += '<p><a href="../">All products</a></p>'
        write(f"products/{cat}/index.html", page(f"Products: {cat.capitalize()}", body))
        for i, (href, name, price) in enumerate(items):
            related = [items[(i + 1) % len(items)], items[(i + 5) % len(items)]]
            body = (f'<p><img src="/images/products/{cat}.png" alt="{esc(name)}" '
                    f'width="8" height="8"></p><p>Price: ${price}</p>' + prose(500 + ci * 20 + i))
            body += ul([("./", f"All {cat}")] + [(r[0], "Related: " + r[1]) for r in related])
            write(f"products/{cat}/{href}", page(name, body))


def images():
    write("images/logo.png", png(16, 16, (30, 30, 30)))
    write("images/banner.gif", gif((0, 120, 200)))
    for cat, colour in zip(CATEGORIES, CATEGORY_COLOURS):
        write(f"images/products/{cat}.png", png(8, 8, colour))
    icons = {"new": (0, 200, 0), "sale": (220, 0, 0), "star": (240, 200, 0)}
    for name, colour in icons.items():
        write(f"images/icons/{name}.gif", gif(colour))
    files = (["logo.png", "banner.gif"] + [f"products/{c}.png" for c in CATEGORIES]
             + [f"icons/{n}.gif" for n in icons])
    body = "".join(f'<p><img src="{f}" alt="{f}"> <a href="{f}">{f}</a></p>\n' for f in files)
    write("images/index.html", page("Images", body))


def private():
    write("private/index.html", page("Staff area", "<p>Staff only.</p>" + ul([
        ("salaries.html", "Salaries"), ("passwords.html", "Passwords"),
        ("sitemap-secret.html", "The page the sitemap leaks"),
    ])))
    write("private/salaries.html", page("Salaries", "<p>Confidential.</p>"))
    write("private/passwords.html", page("Passwords", "<p>hunter2 (not really).</p>"))
    write("private/sitemap-secret.html",
          page("Leaked by the sitemap", "<p>sitemap.xml lists this page; the rules still exclude it.</p>"))


def tmp():
    write("tmp/scratch.html", page("Scratch", "<p>robots.txt disallows /tmp/.</p>"))
    write("tmp/public.html", page("Public scratch",
                                  "<p>robots.txt allows this one back: the longer Allow wins.</p>"))
    write("tmp/build/log.html", page("Build log", "<p>Disallowed by robots.txt.</p>"))


def hidden():
    """Pages that a crawler obeying robots meta and rel=nofollow never meets."""
    for name, how in [
        ("from-noindex", "a page whose robots meta says noindex, nofollow"),
        ("nofollowed", 'a rel="nofollow" link'),
        ("from-x-robots-tag", "a page served with X-Robots-Tag: noindex, nofollow"),
    ]:
        write(f"hidden/{name}.html", page("Hidden: " + name, f"<p>Only linked from {how}.</p>"))
    write("hidden/from-noindex-follow.html",
          page("Found through a noindex page", "<p>noindex alone still lets links be followed.</p>"))
    write("hidden/in-noindex-region.html",
          page("Linked from a noindex region", "<p>Links inside noindex regions are followed.</p>"))
    # Served with an X-Robots-Tag header by src/demo.rs.
    write("hidden/x-robots-tag.html", page("X-Robots-Tag", ul([
        ("from-x-robots-tag.html", "A link the header says not to follow")])))


def links():
    tests = [
        ("broken.html", "Broken links (404s)"),
        ("external.html", "Links to other hosts"),
        ("escapes.html", "Terminal escapes in URLs and titles"),
        ("robots.html", "robots.txt: Disallow, Allow, $"),
        ("noindex.html", "Robots meta: noindex, nofollow"),
        ("noindex-follow.html", "Robots meta: noindex only"),
        ("nofollow.html", 'rel="nofollow" links'),
        ("regions.html", "noindex / googleoff regions"),
        ("frames.html", "iframes and image maps"),
        ("base.html", "<base href>"),
        ("errors.html", "Redirects, errors and a slow page"),
        ("/calendar/2025/06/", "The calendar trap"),
    ]
    write("links/index.html", page("Test pages", prose(3) + ul(tests)))
    write("links/broken.html", page("Broken links", ul([
        ("/missing.html", "A page that never existed"),
        ("/docs/nope/", "A docs section that never existed"),
        ("/products/widgets/item-99.html", "A discontinued product"),
        ("/blog/2019/01/lost-post.html", "A lost blog post"),
        ("/images/missing.png", "A missing image"),
    ])))
    write("links/external.html", page("Other hosts", ul([
        ("http://external.invalid/", "external.invalid"),
        ("https://www.external.invalid/page.html", "www.external.invalid over https"),
        ("//cdn.external.invalid/lib.js", "a protocol-relative link"),
        ("http://127.0.0.2/", "another loopback address"),
        ("ftp://external.invalid/file.txt", "an ftp link"),
        ("mailto:webmaster@external.invalid", "a mailto link"),
    ]) + '<p><a href="javascript:void(0)">a javascript link</a></p>'))
    # Raw control characters in the title and link text: a console that
    # prints them unescaped turns text red, clears the screen or retitles
    # the terminal window.
    write("links/escapes.html", page(
        "Escapes \x1b[31mred\x1b[0m \x1b]0;pwned\x07 bell\x07",
        ul([
            ("/weird?x=%1B%5B31mred", "\x1b[31ma red query\x1b[0m"),
            ("/weird?x=%1B%5D0%3Bpwned%07", "a window-title query"),
            ("/weird?x=%0D%0Aforged%20line", "a CR LF query"),
            ("/%1B%5B2Jcleared", "an escape in a path that does not exist"),
        ])))
    write("links/robots.html", page("robots.txt tests", ul([
        ("/tmp/scratch.html", "Disallow: /tmp/"),
        ("/tmp/build/log.html", "Disallow: /tmp/ (deeper)"),
        ("/tmp/public.html", "Allow: /tmp/public.html (longer match wins)"),
        ("/docs/old.bak", "Disallow: /*.bak$"),
    ])))
    write("links/noindex.html", page(
        "noindex, nofollow",
        ul([("/hidden/from-noindex.html", "Not followed: the robots meta says nofollow")]),
        head='<meta name="robots" content="noindex,nofollow">\n'))
    write("links/noindex-follow.html", page(
        "noindex only",
        ul([("/hidden/from-noindex-follow.html", "Followed: noindex does not stop links")]),
        head='<meta name="robots" content="noindex">\n'))
    write("links/nofollow.html", page("rel=nofollow", (
        '<ul>\n<li><a rel="nofollow" href="/hidden/nofollowed.html">A nofollow link</a></li>\n'
        '<li><a href="/hidden/x-robots-tag.html">A page with an X-Robots-Tag header</a></li>\n'
        '<li><a rel="external nofollow" href="http://external.invalid/sponsored">'
        "A sponsored link</a></li>\n</ul>")))
    write("links/regions.html", page("Excluded regions", (
        "<p>Indexed text.</p>\n<!--noindex--><p>Not in the excerpt, but "
        '<a href="/hidden/in-noindex-region.html">this link</a> is followed.</p><!--endnoindex-->\n'
        "<!--googleoff: all--><p>Also left out of the excerpt.</p><!--googleon: all-->\n")))
    write("links/frames.html", page("Frames and maps", (
        '<iframe src="/docs/getting-started/" title="docs"></iframe>\n'
        '<img src="/images/banner.gif" usemap="#m" alt="map">\n'
        '<map name="m"><area shape="rect" coords="0,0,1,1" href="/products/widgets/" alt="widgets"></map>\n')))
    write("links/base.html", page(
        "Base href",
        ul([("filters.html", "filters.html resolves under /docs/rules/"),
            ("../dialects/", "../dialects/ resolves to /docs/dialects/")]),
        head='<base href="/docs/rules/">\n'))
    write("links/errors.html", page("Redirects, errors, slowness", ul([
        ("/old/", "A moved section (301 to /docs/)"),
        ("/docs", "A directory without its slash (301 to /docs/)"),
        ("/chain/1", "A chain of four redirects"),
        ("/loop/a", "A redirect loop"),
        ("/error/500", "A server error (500)"),
        ("/error/503", "Unavailable for now (503, Retry-After: 1)"),
        ("/slow", "A slow page"),
    ])))


def home(posts):
    latest = list(reversed(posts))[:3]
    body = prose(0) + ul([
        ("/docs/", "Documentation"),
        ("/docs/manual.pdf", "The manual (PDF)"),
        ("/blog/", "Blog"),
        ("/products/", "Products"),
        ("/products/?sort=price", "Products, cheapest first"),
        ("/images/", "Images"),
        ("/calendar/2025/06/", "Events calendar"),
        ("/links/", "Test pages for crawlers"),
        ("/private/", "Staff area"),
        ("/weird?x=%1B%5B31mred", "A weird URL"),
        ("{{ORIGIN}}/about.html", "About (an absolute link)"),
    ]) + "<h2>Latest posts</h2>" + ul([(p[0], p[1]) for p in latest])
    body += '<p><img src="/images/banner.gif" alt="banner" width="1" height="1"></p>'
    write("index.html", page("crawlspace demo site", body))
    write("about.html", page("About", prose(4) + ul([
        ("/", "Home"), ("/private/", "Staff login"), ("/links/", "Test pages")])))


def text_files(posts):
    write("robots.txt", """# robots.txt for the crawlspace demo site (RFC 9309)
User-agent: *
Disallow: /tmp/
Allow: /tmp/public.html
Disallow: /*.bak$

# A group for another crawler: crawlspace must not read it as its own.
User-agent: BadBot
Disallow: /

Sitemap: {{ORIGIN}}/sitemap.xml
""")
    entries = [("/", None), ("/docs/", None), ("/docs/orphan.html", "2024-05-01"),
               ("/private/sitemap-secret.html", "2024-05-01"), ("/products/", None),
               ("/products/widgets/", None), ("/tmp/public.html", None)]
    entries += [(p[0], f"{p[2]}-{p[3]:02d}-01") for p in posts[-8:]]
    urls = "\n".join(
        "  <url><loc>{{ORIGIN}}" + path + "</loc>"
        + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "") + "</url>"
        for path, lastmod in entries
    )
    write("sitemap.xml", '<?xml version="1.0" encoding="UTF-8"?>\n'
          '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + urls + "\n</urlset>\n")
    write("style.css", "body { font-family: sans-serif; max-width: 48em; margin: 1em auto; }\n"
          "nav a { margin-right: .5em; }\nfooter { color: #777; }\n")


def main():
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    docs()
    posts = blog()
    products()
    images()
    private()
    tmp()
    hidden()
    links()
    home(posts)
    text_files(posts)
    pages = sum(1 for p in written if p.endswith(".html"))
    print(f"wrote {len(written)} files ({pages} HTML pages) under {ROOT}")


if __name__ == "__main__":
    main()
