// badgepress site script: enhances pages that work without it (search, copy buttons).
(function () {
  'use strict';
  // Search: the files of search/ form a tree of every part of every repository and group name
  // (see src/render/pages/search-index.ts); a query fetches the root, then one file per typed
  // character until a file holds every name under its prefix, and that file's further parts
  // when the entries sought may be among them. Fetched files are kept.
  function shardName(prefix) {
    if (!prefix) return '-';
    var out = '';
    for (var k = 0; k < prefix.length; k++) {
      var c = prefix.charCodeAt(k);
      if (k > 0 && k % 24 === 0) out += '/';
      out += (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) ? prefix.charAt(k) : '_' + c.toString(16) + '_';
    }
    return out;
  }
  function lastSegment(path) {
    var parts = path.split('/');
    for (var k = parts.length - 1; k >= 0; k--) if (parts[k]) return parts[k];
    return '';
  }
  function nameOfUrl(url) {
    var at = url.indexOf('://') + 3;
    return lastSegment(url.slice(url.indexOf('/', at) + 1)).toLowerCase();
  }
  function Finder(form) {
    this.base = form.getAttribute('data-search');
    this.pages = form.getAttribute('data-pages');
    this.groups = form.getAttribute('data-groups');
    this.api = form.getAttribute('data-api');
    this.cache = {};
  }
  // A prefix's file, its part n (from 2), or (part 'ends') its names that end with it.
  Finder.prototype.shard = function (prefix, part) {
    var url = this.base + shardName(prefix) + (part === 'ends' || part > 1 ? '.' + part : '') + '.json';
    if (!this.cache[url]) this.cache[url] = fetch(url).then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); });
    return this.cache[url];
  };
  // Resolves to { groups, repositories, unlisted, more, path, badges }: the entries whose name
  // holds the query's last segment (those it starts first) and, when it names a path, whose
  // address holds it.
  Finder.prototype.find = function (query) {
    var self = this;
    var q = query.trim().toLowerCase().replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
    var name = lastSegment(q);
    var path = q.indexOf('/') >= 0 ? q.replace(/\/+$/, '') : '';
    return this.shard('').then(function (root) {
      var badges = root.badges;
      function walk(node, k) {
        if (!node.more || k >= name.length) return Promise.resolve(node);
        var c = name.charAt(k);
        if (node.more.indexOf(c) < 0) return Promise.resolve(null);
        return self.shard(name.slice(0, k + 1)).then(function (next) { return walk(next, k + 1); });
      }
      return walk(root, 0).then(function (node) {
        var out = { groups: [], repositories: [], more: 0, unlisted: 0, path: path, badges: badges };
        if (!node) return out;
        // The file's other parts, when what is sought may be there: every entry in them is named
        // the prefix, so they are read only for a path or a longer name.
        var whole = node.parts > 1 && (path || name.length > node.prefix.length);
        var rest = [];
        for (var p = 2; whole && p <= node.parts; p++) rest.push(self.shard(node.prefix, p));
        // The longer names that end with the query, when it stops at a prefix that has more.
        if (node.ends) rest.push(self.shard(node.prefix, 'ends'));
        return Promise.all(rest).then(function (parts) {
          var files = [node].concat(parts);
          var listed = 0;
          var starts = { groups: [], repositories: [] };
          var seen = {};
          function keep(kind, entry, label, key) {
            if (label.indexOf(name) < 0 || (path && key.toLowerCase().indexOf(path) < 0) || seen[kind + key]) return;
            seen[kind + key] = true;
            (label.indexOf(name) === 0 ? starts : out)[kind].push(entry);
          }
          for (var f = 0; f < files.length; f++) {
            listed += files[f].groups.length + files[f].repositories.length;
            for (var g = 0; g < files[f].groups.length; g++) keep('groups', files[f].groups[g], lastSegment(files[f].groups[g][0]).toLowerCase(), files[f].groups[g][0]);
            for (var r = 0; r < files[f].repositories.length; r++) keep('repositories', files[f].repositories[r], nameOfUrl(files[f].repositories[r][0]), files[f].repositories[r][0]);
          }
          // Names that start with the query before those that hold it further on.
          out.groups = starts.groups.concat(out.groups);
          out.repositories = starts.repositories.concat(out.repositories);
          var own = (node.parts > 1 ? node.own : node.groups.length + node.repositories.length) + (node.ends || 0);
          if (!path) {
            // Own entries in parts not read, or past the first 200 ending so: counted, not listed.
            out.unlisted = own - listed;
            // Entries under a longer prefix than the query: the file says how many, not which.
            if (node.more) out.more = node.n - own;
          } else if (own > listed || (node.more && node.n > own)) out.more = 1;
          return out;
        });
      });
    });
  };
  Finder.prototype.render = function (list, found, limit) {
    var self = this;
    list.textContent = '';
    var shown = 0;
    for (var g = 0; g < found.groups.length && shown < limit; g++, shown++) {
      var gr = found.groups[g];
      var li = document.createElement('li');
      var a = document.createElement('a');
      a.href = this.groups + gr[1] + '/';
      a.textContent = gr[0];
      li.appendChild(a);
      li.appendChild(document.createTextNode(' (group, ' + gr[2] + (gr[2] === 1 ? ' repository)' : ' repositories)')));
      list.appendChild(li);
    }
    for (var r = 0; r < found.repositories.length && shown < limit; r++, shown++) {
      var re = found.repositories[r];
      var enc = encodeURIComponent(re[0]);
      var item = document.createElement('li');
      var link = document.createElement('a');
      link.href = this.pages + enc + '/';
      link.textContent = re[0];
      item.appendChild(link);
      item.appendChild(document.createTextNode(' '));
      var span = document.createElement('span');
      span.className = 'badges';
      for (var j = 0; j < found.badges.length; j++) {
        if (!re[1][j]) continue;
        var img = document.createElement('img');
        img.className = 'badge-img';
        img.src = self.api + enc + '/badges/' + found.badges[j] + '.svg';
        img.alt = found.badges[j] + ': ' + re[1][j];
        span.appendChild(img);
      }
      item.appendChild(span);
      list.appendChild(item);
    }
    var total = found.groups.length + found.repositories.length + found.unlisted;
    var text = total === 0 && !found.more ? 'Nothing matches.' : total > shown ? shown + ' of ' + total + ' matches shown.' : total + (total === 1 ? ' match.' : ' matches.');
    // Those names were not looked at for the path: how many hold the letters says nothing of it.
    if (found.more) text += found.path ? ' More names hold these letters: type more of the name to look among them too.' : ' ' + found.more + (found.more === 1 ? ' more name holds' : ' more names hold') + ' these letters: type more of the name.';
    return text;
  };
  // A results region after a form: a status line and a list.
  function resultsFor(container) {
    var status = document.createElement('p');
    status.setAttribute('role', 'status');
    var list = document.createElement('ul');
    list.className = 'repo-list find-list';
    container.appendChild(status);
    container.appendChild(list);
    return { status: status, list: list };
  }
  function attach(form, input, container, limit) {
    var finder = new Finder(document.querySelector('form.find-head'));
    var out = resultsFor(container);
    var seq = 0;
    var timer = null;
    function run() {
      var q = input.value;
      var mine = ++seq;
      if (!q.trim()) { out.list.textContent = ''; out.status.textContent = ''; container.hidden = true; return; }
      finder.find(q).then(function (found) {
        if (mine !== seq) return;
        container.hidden = false;
        out.status.textContent = finder.render(out.list, found, limit);
      }, function () {
        if (mine !== seq) return;
        container.hidden = false;
        out.list.textContent = '';
        out.status.textContent = 'The search could not be loaded; press Find to browse instead.';
      });
    }
    input.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(run, 120); });
    input.addEventListener('keydown', function (e) { if (e.key === 'Escape') { container.hidden = true; } });
    return run;
  }
  function setupSearch() {
    var head = document.querySelector('form.find-head');
    if (!head) return;
    var page = document.querySelector('form.find-page');
    var pageResults = document.getElementById('find-page-results');
    if (page && pageResults) {
      var input = page.querySelector('input');
      var run = attach(page, input, pageResults, 200);
      var q = new URLSearchParams(location.search).get('q');
      if (q) { input.value = q; run(); }
    }
    var popup = document.createElement('div');
    popup.className = 'find-results find-popup';
    popup.hidden = true;
    head.appendChild(popup);
    attach(head, head.querySelector('input'), popup, 10);
    // A click or focus outside the header's form closes its results.
    function outside(e) { if (!head.contains(e.target)) popup.hidden = true; }
    document.addEventListener('click', outside);
    document.addEventListener('focusin', outside);
  }
  function setupCopy() {
    if (!navigator.clipboard) return;
    var blocks = document.querySelectorAll('[data-copy]');
    for (var i = 0; i < blocks.length; i++) {
      (function (block) {
        var head = block.querySelector('.snippet-head');
        var code = block.querySelector('code');
        if (!head || !code) return;
        var button = document.createElement('button');
        button.type = 'button';
        button.textContent = 'Copy';
        button.setAttribute('aria-label', 'Copy ' + head.textContent.trim());
        button.addEventListener('click', function () {
          navigator.clipboard.writeText(code.textContent).then(function () { button.textContent = 'Copied'; }, function () { button.textContent = 'Select and copy'; });
        });
        head.appendChild(button);
      })(blocks[i]);
    }
  }
  setupSearch();
  setupCopy();
})();
