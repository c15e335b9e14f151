// The captcha widget in Chromium, on an instance that turns captcha on
// and sends mail: web_test.go points Ermine's captcha check at a local
// stand-in for hCaptcha's siteverify, and this script serves a stand-in
// for hCaptcha's widget script at its real address (the only thing the
// client loads from outside the instance, and only with captcha on).
// The widget offers a right and a wrong answer. Registration refuses to
// send without an answer, shows the server's refusal of a wrong one,
// renews the widget, and succeeds with a right one; "Forgot your
// password?" on the login page asks for its own answer too.

import { click, fill, launch, reportFailure } from "./lib.mjs";

const BASE = process.env.ERMINE_URL;
const SITE_KEY = process.env.CAPTCHA_SITE_KEY;
if (!BASE || !SITE_KEY) throw new Error("ERMINE_URL and CAPTCHA_SITE_KEY must be set");
const SHOTS = process.env.SCREENSHOTS || "screenshots";
const started = Date.now();
const step = (name) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${name}`);

// hCaptcha's explicit-render API, as the client uses it: render() puts a
// widget in the element and calls back with an answer; the script calls
// the function its onload parameter names.
const widget = `(() => {
  let n = 0;
  window.hcaptcha = {
    render(el, opts) {
      const id = "w" + ++n;
      const box = document.createElement("div");
      box.dataset.widget = id;
      box.dataset.sitekey = opts.sitekey;
      for (const [label, answer] of [["I am human", "good-" + id], ["Wrong answer", "bad-" + id]]) {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = label;
        b.onclick = () => opts.callback(answer);
        box.appendChild(b);
      }
      el.appendChild(box);
      return id;
    },
    remove(id) {
      document.querySelector('[data-widget="' + id + '"]')?.remove();
    },
  };
  window[new URL(document.currentScript.src).searchParams.get("onload")]();
})();`;

const browser = await launch();
const pageErrors = [];
const widgetLoads = [];
let page;
let failed = false;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.route(
    (url) => !url.href.startsWith(BASE) && !url.href.startsWith(BASE.replace("http", "ws")) && !url.protocol.startsWith("data"),
    (route) => {
      const url = new URL(route.request().url());
      if (url.origin === "https://js.hcaptcha.com" && url.pathname === "/1/api.js") {
        widgetLoads.push(url.href);
        return route.fulfill({ contentType: "text/javascript", body: widget });
      }
      pageErrors.push(`request outside the instance: ${url.href}`);
      return route.abort();
    },
  );
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on("pageerror", (err) => pageErrors.push(err.message));
  const email = `captcha_${Date.now().toString(36)}@ermine.test`;

  step("the register page shows the widget with the instance's site key");
  await page.goto(`${BASE}/app/register`);
  const box = page.locator(".captcha [data-widget]");
  await box.waitFor();
  if ((await box.getAttribute("data-sitekey")) !== SITE_KEY) throw new Error(`widget site key ${await box.getAttribute("data-sitekey")}`);

  step("no answer: the client asks for one and sends nothing");
  await fill(page, "Email", email);
  await fill(page, "Password", "a long enough password 1", "password");
  await click(page, "button", "Create account");
  await page.getByRole("alert").filter({ hasText: "Please answer the captcha first." }).waitFor();

  step("a wrong answer: the server refuses it, and the widget is renewed");
  await click(page, "button", "Wrong answer");
  await click(page, "button", "Create account");
  await page.getByRole("alert").filter({ hasText: "Captcha Failed" }).waitFor();
  await page.locator('.captcha [data-widget="w2"]').waitFor();

  step("a right answer: the account is made and the client says to check the mail");
  await click(page, "button", "I am human");
  await click(page, "button", "Create account");
  await page.getByRole("heading", { name: "Check your mail" }).waitFor();

  step("password reset from the login page asks for its own answer");
  await click(page, "link", "Back to log in");
  await fill(page, "Email", email);
  await click(page, "button", "Forgot your password?");
  await page.getByRole("status").filter({ hasText: "Please answer the captcha first." }).waitFor();
  await click(page, "button", "I am human");
  await click(page, "button", "Forgot your password?");
  await page.getByRole("status").filter({ hasText: "a reset link is on its way" }).waitFor();

  if (!widgetLoads.length) throw new Error("the widget script was never requested");
  if (pageErrors.length) throw new Error(`page errors:\n${pageErrors.join("\n")}`);
  step(`captcha: widget shown, no answer, wrong answer, register, password reset — passed`);
} catch (err) {
  failed = true;
  await reportFailure(err, page ? [{ name: "captcha", page }] : [], pageErrors, SHOTS);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
