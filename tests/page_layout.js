// What a reader would see wrong on the page, measured in the browser: text over other
// text, text cut off by its chart or running off the page's column; and the page's
// sections in order. Evaluated by tests/chromium.py; its value is the expression's last.
(() => {
  const SLACK = 1.5; // pixels of overlap that antialiasing and rounding make anyway
  const body = document.body.getBoundingClientRect();
  const column = {
    left: body.left + parseFloat(getComputedStyle(document.body).paddingLeft) - SLACK,
    right: body.right - parseFloat(getComputedStyle(document.body).paddingRight) + SLACK,
  };

  // Where a text is: its chart's or table's caption, else its section's heading.
  const where = (node) => {
    const element = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
    const figure = element.closest("figure");
    const caption = figure && figure.querySelector("figcaption");
    if (caption) return `"${caption.textContent.trim()}"`;
    const heading = element.closest("section")?.querySelector("h2");
    return heading ? `section "${heading.textContent.trim()}"` : "the page head";
  };
  const short = (text) => {
    const t = text.replace(/\s+/g, " ").trim();
    return t.length > 40 ? `${t.slice(0, 37)}…` : t;
  };

  // Every piece of text as a polygon in page coordinates: SVG text by its own box turned
  // as the chart turns it, HTML text by its line boxes.
  const boxes = [];
  const page = (x, y) => [x + window.scrollX, y + window.scrollY];
  for (const text of document.querySelectorAll("svg text")) {
    if (!text.textContent.trim()) continue;
    const b = text.getBBox();
    const m = text.getScreenCTM();
    const corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height],
      [b.x, b.y + b.height]];
    boxes.push({
      text: text.textContent, node: text, svg: text.ownerSVGElement,
      polygon: corners.map(([x, y]) => page(m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f)),
    });
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement.closest("svg") || !n.textContent.trim()
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width < 1 || r.height < 1) continue;
      boxes.push({
        text: node.textContent, node, svg: null,
        polygon: [page(r.left, r.top), page(r.right, r.top), page(r.right, r.bottom),
          page(r.left, r.bottom)],
      });
    }
  }
  for (const box of boxes) {
    const xs = box.polygon.map((p) => p[0]);
    const ys = box.polygon.map((p) => p[1]);
    box.left = Math.min(...xs); box.right = Math.max(...xs);
    box.top = Math.min(...ys); box.bottom = Math.max(...ys);
  }

  // How deep two convex polygons overlap (separating axes): 0 when they do not.
  const depth = (p, q) => {
    let least = Infinity;
    for (const polygon of [p, q]) {
      for (let i = 0; i < polygon.length; i++) {
        const [x1, y1] = polygon[i];
        const [x2, y2] = polygon[(i + 1) % polygon.length];
        const length = Math.hypot(x2 - x1, y2 - y1) || 1;
        const axis = [(y1 - y2) / length, (x2 - x1) / length];
        const project = (poly) => poly.map(([x, y]) => x * axis[0] + y * axis[1]);
        const a = project(p);
        const b = project(q);
        const overlap = Math.min(Math.max(...a), Math.max(...b))
          - Math.max(Math.min(...a), Math.min(...b));
        if (overlap <= 0) return 0;
        least = Math.min(least, overlap);
      }
    }
    return least;
  };

  const problems = [];
  boxes.sort((a, b) => a.top - b.top);
  for (let i = 0; i < boxes.length; i++) {
    const a = boxes[i];
    for (let j = i + 1; j < boxes.length && boxes[j].top < a.bottom - SLACK; j++) {
      const b = boxes[j];
      if (a.node === b.node || b.left >= a.right - SLACK || a.left >= b.right - SLACK) continue;
      if (depth(a.polygon, b.polygon) > SLACK) {
        problems.push(`overlap: "${short(a.text)}" (${where(a.node)}) and "${short(b.text)}" `
          + `(${where(b.node)})`);
      }
    }
  }
  for (const box of boxes) {
    if (box.svg) {
      const r = box.svg.getBoundingClientRect();
      const [left, top] = page(r.left, r.top);
      const [right, bottom] = page(r.right, r.bottom);
      if (box.left < left - SLACK || box.right > right + SLACK || box.top < top - SLACK
        || box.bottom > bottom + SLACK) {
        problems.push(`cut off by its chart: "${short(box.text)}" (${where(box.node)})`);
        continue;
      }
    }
    if (box.left < column.left + window.scrollX || box.right > column.right + window.scrollX) {
      problems.push(`outside the page's column: "${short(box.text)}" (${where(box.node)})`);
    }
  }
  for (const element of document.querySelectorAll("body *")) {
    const style = getComputedStyle(element);
    if (style.overflowX !== "visible" && element.scrollWidth > element.clientWidth + 1) {
      problems.push(`content wider than its box: <${element.localName}> (${where(element)})`);
    }
  }
  for (const figure of document.querySelectorAll("figure, table, svg")) {
    const r = figure.getBoundingClientRect();
    if (r.right > column.right || r.left < column.left) {
      problems.push(`wider than the page's column: <${figure.localName}> (${where(figure)})`);
    }
  }

  const sections = [...document.querySelectorAll("body > section")];
  const strength = document.querySelector("section#strength");
  const against = document.querySelector("section#against-each-opponent");
  return {
    problems: [...new Set(problems)],
    sections: sections.map((s) => s.id),
    strength: strength && {
      rows: strength.querySelectorAll("table tbody tr").length,
      headings: [...strength.querySelectorAll("table thead th")].map((th) => th.textContent),
      text: strength.textContent.replace(/\s+/g, " ").trim(),
    },
    against: against && {
      headings: [...against.querySelectorAll("table thead th")].map((th) => th.textContent),
      rows: [...against.querySelectorAll("table tbody tr")].map(
        (tr) => [...tr.children].map((td) => td.textContent),
      ),
      bars: against.querySelectorAll("#opponent-intervals path").length,
      height: against.getBoundingClientRect().height,
    },
    width: Math.max(document.documentElement.scrollWidth, window.innerWidth),
    height: document.documentElement.scrollHeight,
  };
})();
