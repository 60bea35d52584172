// One would-be holder of a directory's build lease, in a process of its own, for the race
// tests: for each trial it waits for `go-<trial>` in the control folder, tries to take the
// lease (the compiled lib/, as the CLI would), writes its token or "refused" to
// `<trial>-<pid>`, and releases only once `release-<trial>` appears, so every holder of a
// trial holds at the same moment.
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DirectorySink } from '../../lib/publish/dir-sink.js';
import { acquireLease, leaseKey } from '../../lib/io/lease.js';

const [out, control, trials] = process.argv.slice(2);
const until = async (name) => {
  while (!existsSync(join(control, name))) await new Promise((ok) => setTimeout(ok, 1));
};
for (let trial = 0; trial < Number(trials); trial++) {
  await until(`go-${trial}`);
  let held;
  try {
    held = await acquireLease(new DirectorySink(out).leaseSlot(leaseKey()));
  } catch (err) {
    if (err?.name !== 'LeaseHeldError') throw err;
  }
  // Written whole, then renamed: the test reads the answer as soon as the name appears.
  writeFileSync(join(control, `.${trial}-${process.pid}`), held ? held.record.token : 'refused');
  renameSync(join(control, `.${trial}-${process.pid}`), join(control, `${trial}-${process.pid}`));
  await until(`release-${trial}`);
  await held?.release();
  writeFileSync(join(control, `${trial}-${process.pid}.done`), '');
}
