/* Testscope HTML report: theme toggle, sortable and filterable tables, the single-file view switch,
   and keyboard navigation between uncovered and partially covered lines. No network, no libraries. */
(function () {
  'use strict';
  var root = document.documentElement;
  function all(scope, selector) { return Array.prototype.slice.call(scope.querySelectorAll(selector)); }

  /* Theme: automatic (system) → light → dark, remembered in localStorage. */
  var themes = ['auto', 'light', 'dark'];
  var toggle = document.getElementById('theme-toggle');
  function showTheme() {
    var current = root.getAttribute('data-theme') || 'auto';
    var label = toggle && toggle.querySelector('.theme-label');
    if (label) { label.textContent = current.charAt(0).toUpperCase() + current.slice(1); }
  }
  if (toggle) {
    toggle.addEventListener('click', function () {
      var next = themes[(themes.indexOf(root.getAttribute('data-theme') || 'auto') + 1) % themes.length];
      if (next === 'auto') { root.removeAttribute('data-theme'); } else { root.setAttribute('data-theme', next); }
      try { localStorage.setItem('testscope-theme', next); } catch (e) { /* storage may be off for file:// */ }
      showTheme();
    });
    showTheme();
  }

  /* A link to something inside a folded section (#functions, #numbers) opens the section. */
  function reveal(element) {
    var opened = false;
    for (var node = element; node; node = node.parentElement) {
      if (node.tagName === 'DETAILS' && !node.open) { node.open = true; opened = true; }
    }
    return opened;
  }
  function revealHash() {
    var target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target && reveal(target)) { target.scrollIntoView(); }
  }

  /* Views of a single-file report: #index, #f3 (a file), #f3-L12 (a line in it), #tests, #tests-t4 (a test). */
  var views = all(document, '.view[data-view]');
  function activeView() {
    if (!views.length) { return document; }
    var id = decodeURIComponent(location.hash.slice(1));
    var match = /^(f\d+|tests)(-.*)?$/.exec(id);
    var view = (match && document.getElementById(match[1])) || document.getElementById('index');
    views.forEach(function (v) { v.classList.toggle('active', v === view); });
    var tab = view.id === 'tests' ? '#tests' : '#index';
    all(document, '.tabs a[href^="#"]').forEach(function (a) {
      if (a.getAttribute('href') === tab) { a.setAttribute('aria-current', 'page'); } else { a.removeAttribute('aria-current'); }
    });
    var line = match && match[2] ? document.getElementById(id) : null;
    if (line) { reveal(line); line.scrollIntoView({ block: 'center' }); } else { window.scrollTo(0, 0); }
    return view;
  }
  var currentView = activeView();
  window.addEventListener('hashchange', function () { if (views.length) { currentView = activeView(); } });

  /* Index tabs: Files, Directories, Targets. */
  all(document, '.view-tabs').forEach(function (bar) {
    var scope = bar.parentNode;
    var buttons = all(bar, '[data-tab]');
    function select(name) {
      buttons.forEach(function (b) { b.setAttribute('aria-selected', b.getAttribute('data-tab') === name ? 'true' : 'false'); });
      all(scope, '[data-panel]').forEach(function (p) { p.hidden = p.getAttribute('data-panel') !== name; });
    }
    buttons.forEach(function (b) { b.addEventListener('click', function () { select(b.getAttribute('data-tab')); }); });
    buttons.forEach(function (b) {
      b.addEventListener('click', function () {
        if (history.replaceState) { history.replaceState(null, '', '#' + b.getAttribute('data-tab')); }
      });
    });
    var wanted = location.hash.slice(1);
    var chosen = buttons.filter(function (b) { return b.getAttribute('data-tab') === wanted; })[0] ||
      buttons.filter(function (b) { return b.getAttribute('aria-selected') === 'true'; })[0] || buttons[0];
    if (chosen) { select(chosen.getAttribute('data-tab')); }
    all(scope, '[data-filter]').forEach(function (button) {
      button.addEventListener('click', function () {
        var input = scope.querySelector('.filter');
        if (!input) { return; }
        select('files');
        input.value = button.getAttribute('data-filter');
        input.dispatchEvent(new Event('input'));
        input.focus();
      });
    });
  });

  /* File tables: sort by a column, filter by path, hide fully covered files. */
  all(document, 'table.sortable').forEach(function (table) {
    var scope = table.closest('.panel') || document;
    var body = table.tBodies[0];
    var rows = all(body, 'tr');
    var input = scope.querySelector('.filter');
    var hide = scope.querySelector('.hide-covered');
    var changedOnly = scope.querySelector('.only-changed');
    var shown = scope.querySelector('.shown');
    function apply() {
      var query = input ? input.value.trim().toLowerCase() : '';
      var count = 0;
      rows.forEach(function (row) {
        var visible = (!query || row.getAttribute('data-name').toLowerCase().indexOf(query) >= 0) &&
          !(hide && hide.checked && row.hasAttribute('data-full')) &&
          !(changedOnly && changedOnly.checked && !row.hasAttribute('data-changed'));
        row.hidden = !visible;
        if (visible) { count += 1; }
      });
      var noun = rows.length === 1 ? ' file' : ' files';
      if (shown) { shown.textContent = count === rows.length ? rows.length + noun : count + ' of ' + rows.length + noun; }
    }
    if (input) { input.addEventListener('input', apply); }
    if (hide) { hide.addEventListener('change', apply); }
    if (changedOnly) { changedOnly.addEventListener('change', apply); }
    all(table, 'th[data-key]').forEach(function (th) {
      th.querySelector('button').addEventListener('click', function () {
        var key = th.getAttribute('data-key');
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        all(table, 'th[data-key]').forEach(function (other) { other.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        rows.sort(function (a, b) {
          var x = a.getAttribute('data-' + key), y = b.getAttribute('data-' + key);
          var order = key === 'name' ? x.localeCompare(y) : parseFloat(x) - parseFloat(y);
          if (order === 0) { order = a.getAttribute('data-name').localeCompare(b.getAttribute('data-name')); }
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });

  /* Function rows jump to their line; a function's closures button shows or hides its closures. */
  all(document, 'table.functions tbody tr').forEach(function (row) {
    row.addEventListener('click', function (event) {
      var link = row.querySelector('a');
      if (link && event.target !== link && !event.target.closest('.fold')) { link.click(); }
    });
  });
  all(document, 'table.functions .fold').forEach(function (button) {
    button.addEventListener('click', function () {
      var open = button.closest('tbody').classList.toggle('open');
      button.setAttribute('aria-expanded', open ? 'true' : 'false');
    });
  });

  /* Next / previous uncovered line (unc: the first line of each uncovered run) or partially covered
     line (par: every one); both wrap around at the end. */
  var focused = null;
  function targets(kind) {
    var scope = currentView.querySelector ? currentView : document;
    return all(scope, 'table.source tr.' + kind).filter(function (row) {
      var before = row.previousElementSibling;
      return kind === 'par' || !before || !before.classList.contains(kind);
    });
  }
  function jump(kind, step) {
    var list = targets(kind);
    if (!list.length) { return; }
    var reference = focused && focused.isConnected && focused.offsetParent !== null ? focused : null;
    var next = null;
    if (reference) {
      var position = function (row) { return reference.compareDocumentPosition(row) & Node.DOCUMENT_POSITION_FOLLOWING; };
      if (step > 0) { next = list.filter(position)[0]; } else { next = list.filter(function (r) { return r !== reference && !position(r); }).pop(); }
    } else {
      var top = 60;
      if (step > 0) { next = list.filter(function (r) { return r.getBoundingClientRect().top > top + 1; })[0]; }
      else { next = list.filter(function (r) { return r.getBoundingClientRect().top < top - 1; }).pop(); }
    }
    if (!next) { next = step > 0 ? list[0] : list[list.length - 1]; }
    if (focused) { focused.classList.remove('focus'); }
    focused = next;
    next.classList.add('focus');
    next.scrollIntoView({ block: 'center' });
    if (history.replaceState) { history.replaceState(null, '', '#' + next.id); }
  }
  all(document, '[data-jump]').forEach(function (button) {
    button.addEventListener('click', function () { jump(button.getAttribute('data-jump'), parseInt(button.getAttribute('data-step'), 10)); });
  });
  document.addEventListener('keydown', function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var target = event.target;
    if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) {
      if (event.key === 'Escape') { target.blur(); }
      return;
    }
    var keys = { j: ['unc', 1], k: ['unc', -1], n: ['par', 1], p: ['par', -1] };
    if (keys[event.key]) { jump(keys[event.key][0], keys[event.key][1]); event.preventDefault(); }
    else if (event.key === '/') {
      var input = (currentView.querySelector ? currentView : document).querySelector('.filter');
      if (input) { input.focus(); event.preventDefault(); }
    }
  });

  if (!views.length) { revealHash(); window.addEventListener('hashchange', revealHash); }
  /* Per-test coverage (run --per-test-coverage): its script, per-test/per-test.js, is written by such a run
     only, and loads its data when a page is opened (script elements, so that it works from file://). */
  if (!views.length && (root.getAttribute('data-per-test') === '1' || root.hasAttribute('data-per-test-chunks'))) {
    var perTest = document.createElement('script');
    perTest.src = (root.getAttribute('data-page') === 'file' ? '../' : '') + 'per-test/per-test.js';
    document.body.appendChild(perTest);
  }

  root.setAttribute('data-ready', '1');
})();
