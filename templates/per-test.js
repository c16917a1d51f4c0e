/* Testscope HTML report, per-test coverage (run --per-test-coverage; docs/per-test-coverage.md), loaded by
   report.js on the pages of such a run only. Its data is loaded when a page is opened (script elements, so
   that it works from file://): a file page's files/<page>.tests.js gives each line's tests (a button lists
   them, linked to their entry on the Tests page), the function table's Tests column and the "Covered only
   by" filter; on the Tests page a test's button loads per-test/tests-<k>.js, the files and functions it ran.
   Everything from the data reaches the page as text (textContent, Option). */
(function () {
  'use strict';
  var root = document.documentElement;
  function all(scope, selector) { return Array.prototype.slice.call(scope.querySelectorAll(selector)); }
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
  if (sourceTable && root.getAttribute('data-per-test') === '1') {
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
          var counts = (data.counts || {})[line] || [];
          tests.forEach(function (index, position) {
            var item = document.createElement('li'), href = data.hrefs[index];
            item.appendChild(href ? link(href, data.tests[index]) : document.createTextNode(data.tests[index]));
            /* How often that test ran the line (the exact number; the count column rounds). */
            if (counts[position] != null) {
              var times = document.createElement('span');
              times.className = 'ts-pt-count';
              times.textContent = ' · ' + counts[position] + (counts[position] === 1 ? ' time' : ' times');
              item.appendChild(times);
            }
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
  if (chunkCount > 0) {
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
    /* Sorting or filtering "All tests" moves or hides rows: the open lists close rather than stay behind. */
    var closeAll = function () {
      all(document, 'tr.ts-cov').forEach(function (row) { row.parentNode.removeChild(row); });
      all(document, '.ts-cov-open[aria-expanded="true"]').forEach(function (b) { b.setAttribute('aria-expanded', 'false'); });
    };
    all(document, 'table.ts-all th[data-key] button').forEach(function (b) { b.addEventListener('click', closeAll, true); });
    var filter = document.querySelector('section[data-section="all"] .filter');
    if (filter) { filter.addEventListener('input', closeAll, true); }
    /* A link from a file page (tests.html#test-…) opens that test's list. */
    var openTarget = function () {
      var target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
      var button = target && target.matches('tr[data-test]') ? target.querySelector('.ts-cov-open') : null;
      if (button && button.getAttribute('aria-expanded') !== 'true') { button.click(); }
    };
    openTarget();
    window.addEventListener('hashchange', openTarget);
  }

})();
