/* Runs first (inline in <head>): theme before paint, and a record of script errors and blocked
   loads in data-errors on <html>, which tests read from the DOM. Reports never call alert(); a call
   is recorded in data-alerts instead of blocking the page. */
(function () {
  var root = document.documentElement;
  root.className += ' js';
  function note(attribute, text) { root.setAttribute(attribute, (root.getAttribute(attribute) || '') + text + '; '); }
  window.addEventListener('error', function (event) {
    var target = event.target;
    if (target && target !== window && (target.src || target.href)) { note('data-errors', 'failed to load ' + (target.src || target.href)); }
    else { note('data-errors', (event.message || 'error') + ' at ' + (event.filename || '') + ':' + (event.lineno || 0)); }
  }, true);
  window.addEventListener('unhandledrejection', function (event) { note('data-errors', 'unhandled rejection: ' + event.reason); });
  document.addEventListener('securitypolicyviolation', function (event) { note('data-errors', 'blocked by the page policy: ' + event.blockedURI); });
  window.alert = function (message) { note('data-alerts', String(message)); };
  var theme = null;
  var query = /[?&]theme=(light|dark|auto)\b/.exec(location.search);
  try { theme = query ? query[1] : localStorage.getItem('testscope-theme'); } catch (e) { theme = query ? query[1] : null; }
  if (theme === 'light' || theme === 'dark') { root.setAttribute('data-theme', theme); }
})();
