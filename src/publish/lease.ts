// The output's lease lives in io/ (a scan holds one on its store too); builds import it from here.
export * from '../io/lease.ts';
