// badgepress site script: enhances pages that work without it (search, copy buttons).
(function () {
  'use strict';
  function setupSearch() {
    var form = document.getElementById('search');
    if (!form) return;
    var input = form.querySelector('input');
    var list = document.getElementById('search-results');
    var status = document.getElementById('search-status');
    var indexUrl = form.getAttribute('data-index');
    var pagePrefix = form.getAttribute('data-pages');
    var urls = null;
    var loading = null;
    form.hidden = false;
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    function load() {
      if (!loading) {
        loading = fetch(indexUrl).then(function (r) { return r.json(); }).then(function (u) { urls = u; return u; });
      }
      return loading;
    }
    function show() {
      var q = input.value.trim().toLowerCase();
      list.textContent = '';
      if (!q || !urls) { status.textContent = ''; return; }
      var shown = 0;
      var total = 0;
      for (var i = 0; i < urls.length; i++) {
        if (urls[i].toLowerCase().indexOf(q) < 0) continue;
        total++;
        if (shown >= 50) continue;
        shown++;
        var li = document.createElement('li');
        var a = document.createElement('a');
        a.href = pagePrefix + encodeURIComponent(urls[i]) + "/";
        a.textContent = urls[i];
        li.appendChild(a);
        list.appendChild(li);
      }
      status.textContent = total === 0 ? 'No repository matches.' : total > shown ? shown + ' of ' + total + ' matches shown.' : total + (total === 1 ? ' match.' : ' matches.');
    }
    input.addEventListener('input', function () { load().then(show, function () { status.textContent = 'The search index could not be loaded; browse the list below.'; }); });
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
