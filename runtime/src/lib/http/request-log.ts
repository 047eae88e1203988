/**
 * One log line per request, written when it is answered: its method, URL, status and time
 * together. Fastify writes two (`incoming request`, then `request completed`), which doubles the
 * log's volume and its cost: each line was ~2.5 % of the CPU of a GET of one item (`node
 * --cpu-prof`, bench/RESULTS.md). A request still running has no line yet; the handler deadline
 * bounds how long that can be (deadline.ts).
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
