/**
 * What the runtime does as each request arrives and once it is answered, on the two calls Fastify
 * makes to its log controller for every request anyway (routed, 404 or refused by the router)
 * rather than in hooks: each hook is a step of every request (the onSend hook this replaced was
 * 0–3.5 % of the CPU of a GET of one item in process, within this VM's noise), and the router's
 * refusals, which no hook of the app's sees, get the same headers as every other answer.
 *
 * And one log line per request, written when it is answered: its method, URL, status and time
 * together. Fastify writes two (`incoming request`, then `request completed`), which doubles the
 * log's volume and its cost: each line was ~2.5 % of the CPU of a GET of one item (`node
 * --cpu-prof`, bench/RESULTS.md). A request still running has no line yet; the handler deadline
 * bounds how long that can be (deadline.ts).
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

type Step = (reply: FastifyReply) => void;
const nothing: Step = () => {};

export class RequestLog extends LogController {
  /** Before the request's hooks, its route's or the 404's (app.ts sets it once the app exists). */
  arrived: Step = nothing;
  /** When its answer has been handed to the connection, or the connection failed. */
  answered: Step = nothing;

  override incomingRequest(_request: FastifyRequest, reply: FastifyReply): void {
    this.arrived(reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.answered(reply);
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
