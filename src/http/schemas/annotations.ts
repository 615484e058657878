// JSON Schemas of annotation streams, events and links as clients send them
// (field-by-field rules; rules across fields are in domain/annotations.ts).
import { MAX_NAME_LENGTH, nameSchema } from './spaces.js';
import { MAX_LINKS, MAX_TIME } from '../../domain/annotations.js';

/** A rel names the link in its URL (`/links/<rel>`), so it keeps to URL-safe characters. */
const REL_PATTERN = '^[A-Za-z0-9._:-]{1,64}$';

const time = { type: 'integer', minimum: 0, maximum: MAX_TIME };

export const linkSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['rel', 'href'],
  properties: {
    rel: { type: 'string', pattern: REL_PATTERN },
    // only web links: an annotation's links end up as anchors in dashboards
    href: { type: 'string', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$' },
    label: { type: ['string', 'null'], maxLength: MAX_NAME_LENGTH },
  },
};

const eventProperties = {
  // echo of a GET body; server-owned, ignored
  id: {},
  title: nameSchema,
  // the source rule of the source-based API; an empty form value means "no source"
  source: { type: ['string', 'null'], pattern: '^[A-Za-z0-9.:_-]{0,255}$' },
  description: { type: ['string', 'null'], maxLength: 4096 },
  links: { type: 'array', maxItems: MAX_LINKS, items: linkSchema },
  start_time: time,
  end_time: { ...time, type: ['integer', 'null'] },
};

export const newEventSchema = { type: 'object', additionalProperties: false, required: ['title'], properties: eventProperties };
export const eventUpdateSchema = { type: 'object', additionalProperties: false, properties: eventProperties };

export const streamUpdateSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    display_name: { type: ['string', 'null'], maxLength: MAX_NAME_LENGTH },
    // echo of a GET body; the name is the path's
    name: {},
  },
};
