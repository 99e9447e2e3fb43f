// Which answers of the entry route were a replay: an entry already stored, answered as the first
// time. The service knows it when it finds the clientId taken; the metrics count it from here,
// without asking the database again.
import type { FastifyRequest } from 'fastify';

const replayed = new WeakSet<FastifyRequest>();

export function markReplayed(request: FastifyRequest) {
  replayed.add(request);
}

/** Whether this entry request was answered from the stored result of an earlier one. */
export function entryWasReplayed(request: FastifyRequest): boolean {
  return replayed.has(request);
}
