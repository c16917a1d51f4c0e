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
  /* Per-test coverage (run --per-test-coverage), loaded only when a page is opened (a script element, so
     that it works from file://): a file page loads files/<page>.tests.js, the Tests page per-test/tests-<k>.js. */
  function loadScript(src) {
    var script = document.createElement('script');
    script.src = src;
    document.body.appendChild(script);
  }
  function link(href, text) {
    var a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    return a;
  }
  var sourceTable = document.querySelector('table.source');
  if (sourceTable && !views.length && root.getAttribute('data-per-test') === '1') {
    window.testscopePerTest = function (data) {
      /* The distinct tests of a line: entries with the same link are cases of one test; null is outside tests. */
      function testsOf(line) {
        var seen = {}, tests = [];
        (data.lines[line] || []).forEach(function (index) {
          var href = data.hrefs[index];
          if (href && !seen[href]) { seen[href] = true; tests.push(index); }
        });
        return tests;
      }
      var soleLines = {}, soleCount = 0, byTest = {};
      all(sourceTable, 'tr').forEach(function (row) {
        var number = row.querySelector('td.ln'), count = row.querySelector('td.cnt');
        var line = number ? number.textContent.trim() : '';
        var tests = number && count ? data.lines[line] : null;
        if (!tests || !tests.length) { return; }
        var distinct = testsOf(line);
        if (distinct.length === 1 && tests.every(function (i) { return data.hrefs[i]; })) {
          /* Run by exactly one test (its cases count as one) and nothing outside tests. */
          var only = data.hrefs[distinct[0]];
          soleLines[line] = only;
          soleCount += 1;
          byTest[only] = byTest[only] || { name: data.tests[distinct[0]].replace(/ \[case \d+\]$/, ''), lines: 0 };
          byTest[only].lines += 1;
        }
        var button = document.createElement('button');
        button.type = 'button';
        button.className = 'ts-pt';
        /* Distinct tests (a parameterized test's cases are one); the list shows each case and code outside tests. */
        button.textContent = distinct.length + (distinct.length === 1 ? ' test' : ' tests');
        button.title = 'Tests that ran this line' + (distinct.length < tests.length ? ' (the list shows each case, and code run outside tests)' : '');
        button.addEventListener('click', function () {
          var next = row.nextElementSibling;
          if (next && next.classList.contains('ts-pt-list')) { next.parentNode.removeChild(next); return; }
          var listRow = document.createElement('tr'), cell = document.createElement('td'), list = document.createElement('ul');
          listRow.className = 'ts-pt-list';
          cell.colSpan = 3;
          tests.forEach(function (index) {
            var item = document.createElement('li'), href = data.hrefs[index];
            item.appendChild(href ? link(href, data.tests[index]) : document.createTextNode(data.tests[index]));
            list.appendChild(item);
          });
          cell.appendChild(list);
          listRow.appendChild(cell);
          row.parentNode.insertBefore(listRow, next);
        });
        count.appendChild(button);
      });
      /* The function table's "tests" column: the distinct tests that ran the function's first line. */
      all(document, 'table.functions').forEach(function (table) {
        var head = table.querySelector('thead tr'), th = document.createElement('th');
        th.className = 'num';
        th.textContent = 'Tests';
        th.title = 'How many tests ran the function (its first line)';
        head.appendChild(th);
        all(table, 'tbody tr').forEach(function (row) {
          var cell = document.createElement('td'), line = row.cells[1] ? row.cells[1].textContent.trim() : '';
          cell.className = 'num ts-ptf';
          cell.textContent = String(testsOf(line).length);
          row.appendChild(cell);
        });
      });
      /* "Covered only by": lines run by exactly one test, all of them or one test's, the rest dimmed. */
      var bar = document.querySelector('.source-bar');
      if (bar) {
        var label = document.createElement('label'), select = document.createElement('select');
        label.className = 'ts-only-filter';
        label.appendChild(document.createTextNode('Covered only by '));
        select.appendChild(new Option('(off)', ''));
        select.appendChild(new Option('any one test: ' + soleCount + (soleCount === 1 ? ' line' : ' lines'), '*'));
        Object.keys(byTest).sort(function (a, b) { return byTest[b].lines - byTest[a].lines || byTest[a].name.localeCompare(byTest[b].name); })
          .forEach(function (href) { select.appendChild(new Option(byTest[href].name + ': ' + byTest[href].lines + (byTest[href].lines === 1 ? ' line' : ' lines'), href)); });
        label.appendChild(select);
        bar.appendChild(label);
        select.addEventListener('change', function () {
          var wanted = select.value;
          sourceTable.classList.toggle('ts-only-on', wanted !== '');
          all(sourceTable, 'tr[id]').forEach(function (row) {
            var number = row.querySelector('td.ln'), only = number ? soleLines[number.textContent.trim()] : null;
            var match = wanted !== '' && only && (wanted === '*' || wanted === only);
            row.classList.toggle('ts-only', !!match);
            var note = row.querySelector('.ts-only-by');
            if (match && !note) {
              note = document.createElement('span');
              note.className = 'ts-only-by';
              note.appendChild(document.createTextNode('only '));
              note.appendChild(link(only, byTest[only].name));
              row.querySelector('td.code').appendChild(note);
            } else if (!match && note) { note.parentNode.removeChild(note); }
          });
        });
      }
    };
    loadScript((location.pathname.split('/').pop() || '').replace(/\.html$/, '') + '.tests.js');
  }
  /* The Tests page: each test's button lists the files (lines run) and functions it covered, from its
     chunk (32-bit FNV-1a of the id's UTF-16 code units, as PerTestAnchor.chunk). */
  var chunkCount = parseInt(root.getAttribute('data-per-test-chunks') || '0', 10);
  if (chunkCount > 0 && !views.length) {
    var chunks = {}, waiting = {};
    var chunkOf = function (id) {
      var hash = 2166136261;
      for (var i = 0; i < id.length; i++) { hash = Math.imul(hash ^ id.charCodeAt(i), 16777619) >>> 0; }
      return hash % chunkCount;
    };
    window.testscopeTestCoverage = function (k, data) {
      chunks[k] = data;
      (waiting[k] || []).forEach(function (callback) { callback(data); });
      delete waiting[k];
    };
    var withChunk = function (id, callback) {
      var k = chunkOf(id);
      if (chunks[k]) { callback(chunks[k]); return; }
      if (!waiting[k]) { waiting[k] = []; loadScript('per-test/tests-' + k + '.js'); }
      waiting[k].push(callback);
    };
    var section = function (title, items, render) {
      var block = document.createElement('div'), heading = document.createElement('p'), list = document.createElement('ul');
      heading.className = 'ts-cov-title';
      heading.textContent = title + ' (' + items.length + ')';
      block.appendChild(heading);
      items.forEach(function (item) { var li = document.createElement('li'); render(li, item); list.appendChild(li); });
      if (items.length) { block.appendChild(list); }
      return block;
    };
    var show = function (row, button) {
      var next = row.nextElementSibling;
      if (next && next.classList.contains('ts-cov')) { next.parentNode.removeChild(next); button.setAttribute('aria-expanded', 'false'); return; }
      var id = row.getAttribute('data-test');
      withChunk(id, function (data) {
        var entry = data[id], listRow = document.createElement('tr'), cell = document.createElement('td');
        listRow.className = 'ts-cov';
        cell.colSpan = row.cells.length;
        if (!entry || !entry.files.length) {
          cell.textContent = 'No coverage recorded for this test (it was skipped, ran no code of the report, or its process crashed).';
        } else {
          cell.appendChild(section('Files', entry.files, function (li, f) {
            li.appendChild(link(f.href, f.path));
            li.appendChild(document.createTextNode(' · ' + f.lines + (f.lines === 1 ? ' line' : ' lines')));
          }));
          cell.appendChild(section('Functions', entry.functions, function (li, f) {
            li.appendChild(link(f.href, f.name));
            li.appendChild(document.createTextNode(' · ' + f.path));
          }));
        }
        listRow.appendChild(cell);
        row.parentNode.insertBefore(listRow, row.nextElementSibling);
        button.setAttribute('aria-expanded', 'true');
      });
    };
    all(document, 'table.ts-all tbody tr[data-test]').forEach(function (row) {
      if (row.getAttribute('data-outcome') === 'skipped') { return; }
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'ts-cov-open';
      button.textContent = 'covered';
      button.title = 'Files and functions this test ran';
      button.setAttribute('aria-expanded', 'false');
      button.addEventListener('click', function () { show(row, button); });
      row.querySelector('td.name').appendChild(button);
    });
    /* A link from a file page (tests.html#test-…) opens that test's list. */
    var openTarget = function () {
      var target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
      var button = target && target.matches('tr[data-test]') ? target.querySelector('.ts-cov-open') : null;
      if (button && button.getAttribute('aria-expanded') !== 'true') { button.click(); }
    };
    openTarget();
    window.addEventListener('hashchange', openTarget);
  }

  root.setAttribute('data-ready', '1');
})();
