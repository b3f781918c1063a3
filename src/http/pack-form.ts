import type { FilingYear } from './filing-figures.ts';
import { type Html, html } from './html.ts';
import { csrfField } from './page-layout.ts';

const METHOD_WORDS = { uk: 'UK', de: 'Germany' } as const;
const FORM_WORDS = { uk: 'SA108', de: 'Anlage SO and KAP' } as const;

/** The name of a pack on the page: its country, year and the form it feeds. */
export function packTitle(method: string | undefined, taxYear: string | undefined): string {
  const rules = method === 'uk' || method === 'de' ? method : undefined;
  if (rules === undefined) return `Tax-year pack ${taxYear ?? ''}`.trim();
  return `Tax-year pack: ${METHOD_WORDS[rules]} ${taxYear ?? ''} (${FORM_WORDS[rules]})`;
}

/**
 * The tax years page's request for a pack (build-tax-year-pack.ts): one download per tax year and
 * method, the summary laid out like the form as a PDF with the CSV files and their manifests. The
 * pack is built by the export worker; the page follows it like an export.
 */
export function packForm(accountId: string, uk: readonly FilingYear[], de: readonly FilingYear[], csrf: string): Html {
  // Newest year first, as the page lists them.
  const options = [...[...uk].reverse(), ...[...de].reverse()];
  if (options.length === 0) return html``;
  return html`<form class="pack" method="post" action="/tax-years/${encodeURIComponent(accountId)}/pack">
    ${csrfField(csrf)}
    <label
      >Tax-year pack (PDF laid out like the form, with the CSV files and their checksums):
      <select name="pack">
        ${options.map(
          (fy) =>
            html`<option value="${fy.method}:${fy.year.label}">
              ${METHOD_WORDS[fy.method]} ${fy.year.label}
              (${FORM_WORDS[fy.method]})${fy.complete ? '' : ', year not over'}
            </option>`,
        )}
      </select>
    </label>
    <button type="submit">Make the pack</button>
  </form>`;
}
