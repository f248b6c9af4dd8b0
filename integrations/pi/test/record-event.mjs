// Process extension of the engine used by the end-to-end tests: appends the event it reads
// on stdin, as one JSON line, to the file named by its argument, and decides nothing.

import { appendFileSync, readFileSync } from "node:fs";

const event = JSON.parse(readFileSync(0, "utf8"));
appendFileSync(process.argv[2], `${JSON.stringify(event)}\n`);
