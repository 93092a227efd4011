// node speedscope_check.js FILE: validates FILE against the JSON schema the speedscope
// package ships, then checks what the schema cannot: every frame index exists, each profile's
// weights match its samples and add up to its endValue.  Prints one line per profile.
const fs = require('fs');
const Ajv = require('ajv');
const schema = require('speedscope/dist/release/file-format-schema.json');
const data = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const validate = new Ajv({strict: false, allErrors: true}).compile(schema);
if (!validate(data)) {
  console.log('FAIL: schema: ' + JSON.stringify(validate.errors.slice(0, 5)));
  process.exit(1);
}
const nframes = data.shared.frames.length;
let bad = 0;
for (const p of data.profiles) {
  if (p.samples.length !== p.weights.length) bad++, console.log('FAIL: ' + p.name + ': samples and weights differ in length');
  for (const s of p.samples) for (const i of s) if (!(i >= 0 && i < nframes)) { bad++; break; }
  const sum = p.weights.reduce((a, b) => a + b, 0);
  if (Math.abs(sum - (p.endValue - p.startValue)) > 1e-6 * Math.max(1, sum)) bad++, console.log('FAIL: ' + p.name + ': weights add up to ' + sum + ', not ' + p.endValue);
  // The heaviest stack, root first, as names.
  let best = 0;
  p.weights.forEach((w, i) => { if (w > p.weights[best]) best = i; });
  const top = p.samples.length ? p.samples[best].map(i => data.shared.frames[i].name).join(';') : '';
  console.log('profile\t' + p.name + '\t' + p.unit + '\t' + sum + '\t' + top);
}
process.exit(bad ? 1 : 0);
