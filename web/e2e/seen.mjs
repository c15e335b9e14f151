// The person check of lib.mjs itself (run by web_test.go TestSeenCheck):
// on a page made here, a control a person can see passes, and each way
// of not seeing one fails with its reason: clipped by a scrolling rail
// (the create-server form's old bug), covered, transparent, not
// displayed, outside the window.

import { click, control, launch, seen } from "./lib.mjs";

const page = await (await launch()).newPage({ viewport: { width: 800, height: 600 } });
await page.setContent(`
  <style>
    body { margin: 0; font: 16px sans-serif; }
    .rail { position: fixed; left: 0; top: 0; width: 72px; height: 300px; overflow-y: auto; }
    .pop { position: absolute; left: 70px; top: 10px; width: 240px; }
    .cover { position: fixed; left: 0; top: 400px; width: 800px; height: 100px; background: #000; }
  </style>
  <button id="ok" style="position: fixed; left: 400px; top: 100px">Fine</button>
  <nav class="rail"><form class="pop"><label>Server name <input></label><button type="button">Create</button></form></nav>
  <button style="position: fixed; left: 300px; top: 420px">Covered</button>
  <div class="cover"></div>
  <button style="opacity: 0">Ghost</button>
  <button style="display: none">Gone</button>
  <button style="position: absolute; left: 2000px; top: 10px">Far</button>
  <script>document.getElementById("ok").onclick = () => (document.title = "clicked");</script>
`);

const fails = async (role, name, reason) => {
  await page.evaluate(() => document.querySelectorAll("*").forEach((e) => (e.scrollLeft = 0)));
  try {
    await seen(control(page, role, name, { includeHidden: true }), name, 600);
  } catch (err) {
    if (!new RegExp(reason).test(err.message)) throw new Error(`${name}: expected "${reason}", got: ${err.message}`);
    console.log(`ok: ${name} ${reason}`);
    return;
  }
  throw new Error(`${name} passed the person check; it should fail (${reason})`);
};

await click(page, "button", "Fine");
if ((await page.title()) !== "clicked") throw new Error("the visible button was not clicked");
console.log("ok: a visible button is clicked");
await fails("button", "Create", "clipped by|scrolling .* sideways");
await fails("textbox", "Server name", "clipped by|scrolling .* sideways");
await fails("button", "Covered", "covered by");
await fails("button", "Ghost", "transparent");
await fails("button", "Gone", "not displayed|has no size");
await fails("button", "Far", "outside the window|page sideways");
console.log("seen check passed");
process.exit(0);
