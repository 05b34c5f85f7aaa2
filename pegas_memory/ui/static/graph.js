/* The graph page: draws /graph.json around the centre node with the vendored Cytoscape.js and
   adds a node's own neighbourhood when it is clicked. Inferred (derived) edges are dashed and
   orange, extracted ones solid; a citation of a code symbol is dotted. Every text from the
   memory is put into the page as text (textContent), never as markup. */
(function () {
  "use strict";
  var box = document.getElementById("graph");
  if (!box || typeof cytoscape !== "function") return;
  var details = document.getElementById("details");
  var note = document.getElementById("graph-note");
  var expanded = {};
  var STATUS = { verified: "#b9ebb9", candidate: "#dbe6ff", contested: "#ffd2b3", stale: "#e4e4e4" };

  var cy = cytoscape({
    container: box,
    elements: [],
    minZoom: 0.2,
    maxZoom: 3,
    style: [
      { selector: "node", style: {
          "label": "data(label)", "font-size": 10, "text-wrap": "wrap", "text-max-width": 140,
          "text-valign": "bottom", "text-margin-y": 4, "color": "#1d1d1f",
          "width": 22, "height": 22, "border-width": 1, "border-color": "#22303c" } },
      { selector: "node[kind = 'atom']", style: {
          "shape": "ellipse",
          "background-color": function (n) { return STATUS[n.data("status")] || "#dbe6ff"; } } },
      { selector: "node[kind = 'symbol']", style: {
          "shape": "round-rectangle", "width": 30, "height": 18,
          "background-color": "#e8f3e0", "border-color": "#3b6b2c" } },
      { selector: "node.center", style: { "border-width": 4, "width": 30, "height": 30 } },
      { selector: "node.expanded", style: { "border-style": "double", "border-width": 4 } },
      { selector: "node:selected", style: { "overlay-opacity": 0.15, "overlay-color": "#22303c" } },
      { selector: "edge", style: {
          "curve-style": "bezier", "width": 1.5, "line-color": "#5b6b7a",
          "target-arrow-shape": "triangle", "target-arrow-color": "#5b6b7a", "arrow-scale": 0.8,
          "label": "data(kind)", "font-size": 8, "color": "#555", "text-rotation": "autorotate",
          "text-background-color": "#fff", "text-background-opacity": 0.8 } },
      { selector: "edge.derived", style: {
          "line-style": "dashed", "line-color": "#d9822b", "target-arrow-color": "#d9822b",
          "target-arrow-shape": "vee", "width": 2.5, "color": "#a75a10" } },
      { selector: "edge.cites", style: {
          "line-style": "dotted", "line-color": "#8a8a8a", "target-arrow-color": "#8a8a8a" } }
    ]
  });

  window.pegasGraph = cy; // the drawing, for the browser's console (and the browser test)

  function say(text) { if (note) note.textContent = text; }

  function add(data) {
    var fresh = cy.collection();
    cy.batch(function () {
      data.nodes.forEach(function (n) {
        if (cy.getElementById(n.id).empty()) fresh = fresh.union(cy.add({ group: "nodes", data: n }));
      });
      data.edges.forEach(function (e) {
        if (!cy.getElementById(e.id).empty()) return;
        var cls = e.kind === "cites" && !e.derived ? "cites" : (e.derived ? "derived" : "extracted");
        cy.add({ group: "edges", data: e, classes: cls });
      });
    });
    return fresh;
  }

  function place(fresh, around, from) {
    // New nodes around the node they were drawn from: on a whole circle for the centre, else
    // on an arc facing away from the centre, so they fall clear of what is drawn already.
    var p = around.position();
    var n = fresh.length;
    var radius = 110 + 9 * n;
    var start = -Math.PI / 2, span = 2 * Math.PI, step = span / Math.max(n, 1);
    if (from) {
      var q = from.position();
      var dir = Math.atan2(p.y - q.y, p.x - q.x);
      span = Math.min(2 * Math.PI, Math.PI * 0.9 + n * 0.12);
      start = dir - span / 2;
      step = n > 1 ? span / (n - 1) : 0;
      if (n === 1) start = dir;
    }
    fresh.forEach(function (node, i) {
      var a = start + step * i;
      node.position({ x: p.x + radius * Math.cos(a), y: p.y + radius * Math.sin(a) });
    });
  }

  function record() {
    box.dataset.nodes = String(cy.nodes().length);
    box.dataset.edges = String(cy.edges().length);
    box.dataset.derived = String(cy.edges(".derived").length);
    box.dataset.expanded = Object.keys(expanded).join(" ");
  }

  function load(key) {
    var url = box.dataset.src + "?node=" + encodeURIComponent(key);
    return fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) throw new Error(body.error || ("HTTP " + r.status));
          return body;
        });
      });
  }

  function expand(node) {
    var key = node.id();
    if (expanded[key]) return Promise.resolve();
    expanded[key] = "loading";
    box.dataset.busy = "1";
    return load(key).then(function (data) {
      var fresh = add(data);
      var origin = cy.getElementById(box.dataset.center);
      place(fresh, node, origin.same(node) ? null : origin);
      node.addClass("expanded");
      expanded[key] = true;
      if (data.truncated) say("Part of the neighbourhood of " + key + " was cut; open its own graph to see more.");
      record();
      cy.animate({ fit: { eles: node.closedNeighborhood(), padding: 40 } }, { duration: 250 });
    }).catch(function (err) {
      delete expanded[key];
      say("Could not draw the neighbours of " + key + ": " + err.message);
    }).then(function () { delete box.dataset.busy; });
  }

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function link(href, text) {
    var a = el("a", text);
    if (typeof href === "string" && href.charAt(0) === "/" && href.charAt(1) !== "/") a.href = href;
    return a;
  }

  function show(rows, title, body, links) {
    details.replaceChildren();
    details.appendChild(el("h3", title));
    if (body) {
      var t = el("div", body, "text");
      details.appendChild(t);
    }
    var table = el("table", undefined, "facts");
    rows.forEach(function (r) {
      if (r[1] === undefined || r[1] === null || r[1] === "") return;
      var tr = el("tr");
      tr.appendChild(el("th", r[0]));
      tr.appendChild(el("td", String(r[1])));
      table.appendChild(tr);
    });
    details.appendChild(table);
    (links || []).forEach(function (l) { var p = el("p"); p.appendChild(l); details.appendChild(p); });
  }

  function showNode(node) {
    var d = node.data();
    var title = (d.kind === "atom" ? "Claim " : "Symbol ") + d.id.split(":")[1];
    var body = d.text;
    var rows = d.kind === "atom"
      ? [["type", d.type], ["status", d.status], ["confidence", d.confidence.toFixed(2)], ["language", d.lang]]
      : [["kind", d.type], ["repository", d.repo], ["where", d.where]];
    var t = details.querySelector(".text");
    show(rows, title, body, [link(d.href, d.kind === "atom" ? "open the claim page" : "open the symbol page"),
                             link("/graph?node=" + encodeURIComponent(d.id), "centre the graph here")]);
    t = details.querySelector(".text");
    if (t && d.lang) t.lang = d.lang;
  }

  function showEdge(edge) {
    var d = edge.data();
    var src = cy.getElementById(d.source).data("label"), dst = cy.getElementById(d.target).data("label");
    show([["from", src], ["to", dst], ["origin", d.derived ? "inferred by rules" : d.origin],
          ["confidence", d.confidence.toFixed(2)], ["line", d.line]],
         d.kind + (d.derived ? " (derived)" : " (extracted)"), "");
    (d.derivations || []).forEach(function (dv, i) {
      var p = el("p", "derivation " + (i + 1) + ": ");
      p.appendChild(link("/atom/" + Number(dv.rule), "rule " + Number(dv.rule)));
      var ul = el("ul");
      (dv.premises || []).forEach(function (pr) { ul.appendChild(el("li", pr[0] + " —" + pr[2] + "→ " + pr[1])); });
      p.appendChild(ul);
      details.appendChild(p);
    });
  }

  cy.on("tap", "node", function (evt) { showNode(evt.target); expand(evt.target); });
  cy.on("tap", "edge", function (evt) { showEdge(evt.target); });

  var center = box.dataset.center;
  load(center).then(function (data) {
    add(data);
    var c = cy.getElementById(center);
    c.addClass("center").addClass("expanded");
    expanded[center] = true;
    c.position({ x: 0, y: 0 });
    place(cy.nodes().difference(c), c);
    cy.fit(undefined, 40);
    record();
    box.dataset.ready = "1";
  }).catch(function (err) { say("Could not draw the graph: " + err.message); });
}());
