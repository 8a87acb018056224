// Loads a page in a running Chromium and runs fetch() calls from it, as a browser-based client on that page's
// origin would. Run by test/support/browser.ts with one JSON argument
// {browserWSEndpoint, pageUrl, probes: [{name, url, method?, headers?, body?, readHeaders?}]}; prints one JSON
// object per probe name: {status, headers, body} when the browser let the page read the answer, {error} when it
// did not. A plain Node script: puppeteer-core ships as ES modules only, which Jest's sandbox does not load.
/* global fetch -- the page's own, inside page.evaluate */
import process from 'node:process';
import puppeteer from 'puppeteer-core';

const { browserWSEndpoint, pageUrl, probes } = JSON.parse(process.argv[2]);
const browser = await puppeteer.connect({ browserWSEndpoint });
try {
  const page = await browser.newPage();
  await page.goto(pageUrl);
  const results = await page.evaluate(async (probes) => {
    const answers = {};
    for (const probe of probes) {
      try {
        const response = await fetch(probe.url, {
          method: probe.method ?? 'GET',
          headers: probe.headers,
          body: probe.body,
        });
        const headers = {};
        for (const name of probe.readHeaders ?? []) headers[name] = response.headers.get(name);
        answers[probe.name] = { status: response.status, headers, body: await response.text() };
      } catch (error) {
        answers[probe.name] = { error: String(error) };
      }
    }
    return answers;
  }, probes);
  await page.close();
  process.stdout.write(JSON.stringify(results));
} finally {
  await browser.disconnect();
}
