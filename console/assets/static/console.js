// frameindex web application: the little that needs a script. Every page
// works without it; it adds copy buttons and selects a secret on focus.
(function () {
  "use strict";

  function fallbackCopy(input) {
    input.focus();
    input.select();
    try {
      return document.execCommand("copy");
    } catch (e) {
      return false;
    }
  }

  // The Clipboard API exists only in secure contexts (HTTPS or localhost);
  // an air-gapped install on plain HTTP falls back to selecting the text.
  function copy(input) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(input.value).then(
        function () { return true; },
        function () { return fallbackCopy(input); }
      );
    }
    return Promise.resolve(fallbackCopy(input));
  }

  document.addEventListener("click", function (e) {
    var button = e.target.closest("[data-copy]");
    if (!button) {
      return;
    }
    var input = document.getElementById(button.getAttribute("data-copy"));
    var status = document.getElementById(button.getAttribute("data-status"));
    if (!input) {
      return;
    }
    copy(input).then(function (ok) {
      if (status) {
        status.textContent = ok
          ? "Copied to the clipboard."
          : "Could not copy: the text is selected, press Ctrl+C (or ⌘C) to copy it.";
      }
      if (!ok) {
        input.focus();
        input.select();
      }
    });
  });

  document.addEventListener("focusin", function (e) {
    if (e.target.matches && e.target.matches("input[data-select]")) {
      e.target.select();
    }
  });
})();
