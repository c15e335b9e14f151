// Registration and password reset on an instance that sends mail, in
// Chromium: the client says "check your mail" (only here: without mail it
// logs straight in), and the links in the mails open the client, which
// verifies the address and sets a new password. web_test.go runs it with
// an SMTP mailbox: for each link this script prints "MAIL?" and reads the
// link the test found in the mail from its standard input.

import { click, fill, launch } from "./lib.mjs";
import { mkdirSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";

const BASE = process.env.ERMINE_URL;
if (!BASE) throw new Error("ERMINE_URL is not set");
const SHOTS = process.env.SCREENSHOTS || "screenshots";
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
async function mailLink() {
  console.log("MAIL?");
  const { value } = await lines.next();
  if (!value) throw new Error("no link from the mailbox");
  return value.trim();
}

const browser = await launch();
const page = await (await browser.newContext()).newPage();
page.setDefaultTimeout(20_000);
const email = `mail_${Date.now().toString(36)}@ermine.test`;
let failed = false;
try {
  await page.goto(`${BASE}/app/register`);
  await fill(page, "Email", email);
  await fill(page, "Password", "a long enough password 1", "password");
  await click(page, "button", "Create account");
  await page.getByRole("heading", { name: "Check your mail" }).waitFor();

  const verify = await mailLink();
  if (!verify.startsWith(`${BASE}/app/login/verify/`)) throw new Error(`verification link ${verify}`);
  await page.goto(verify);
  await page.getByRole("heading", { name: "Address verified" }).waitFor();
  await click(page, "link", "Log in");

  await fill(page, "Email", email);
  await click(page, "button", "Forgot your password?");
  await page.getByText("a reset link is on its way").waitFor();
  const reset = await mailLink();
  if (!reset.startsWith(`${BASE}/app/login/reset/`)) throw new Error(`reset link ${reset}`);
  await page.goto(reset);
  await fill(page, "New password", "another long password 2", "password");
  await click(page, "button", "Change password");
  await page.getByRole("heading", { name: "Password changed" }).waitFor();
  await click(page, "link", "Log in");
  await fill(page, "Email", email);
  await fill(page, "Password", "another long password 2", "password");
  await click(page, "button", "Log in");
  await page.getByRole("heading", { name: "Choose a username" }).waitFor({ timeout: 30_000 });
  console.log("mail flows: check your mail, verify link, password reset link, log in — passed");
} catch (err) {
  failed = true;
  console.error(`FAILED: ${err?.stack ?? err}`);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, "mail.png") }).catch(() => {});
  console.error(`screenshot: ${path.join(SHOTS, "mail.png")}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
