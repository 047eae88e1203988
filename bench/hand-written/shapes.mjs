// What both hand-written contenders answer, as the generated service does: the object with _type,
// _pk and _self, the error body of a 404, the status body of a DELETE, and the body schemas of a
// POST and a PATCH.
export const self = (request, id) => `${request.protocol}://${request.host}/v1/items/${id}`;

export const present = (request, row) => ({ ...row, _type: 'Item', _pk: String(row.id), _self: self(request, row.id) });

export const notFound = (request, reply, message) =>
  reply.code(404).send({
    status_code: 404,
    title: 'Not Found',
    explanation: 'The resource could not be found.',
    message,
    timestamp: new Date().toISOString().slice(0, 19) + 'Z',
    request_url: `${request.protocol}://${request.host}${request.url}`,
  });

/** The answer of a DELETE: the service's status body. */
export const deleted = (request) => ({
  status_code: 200,
  title: 'OK',
  explanation: '',
  message: 'Deleted',
  timestamp: new Date().toISOString().slice(0, 19) + 'Z',
  request_url: `${request.protocol}://${request.host}${request.url}`,
});

/** A PATCH body: any of the fields, none required. */
export const patch = {
  type: 'object',
  additionalProperties: false,
  properties: { name: { type: 'string' }, description: { type: ['string', 'null'] } },
};

export const body = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string' }, description: { type: ['string', 'null'] } },
};
