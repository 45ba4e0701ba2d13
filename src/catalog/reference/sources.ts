// Job sources: vendor, class, how its collector delivers postings, how its ids and URLs look, and what its copies lose.

export type SourceClass = 'ats' | 'employer-site' | 'aggregator' | 'staffing-network' | 'government-exchange' | 'dataset' | 'purchased' | 'third-party-api' | 'unknown';
export type SourceType = 'ats_api' | 'ats_html' | 'career_page_html' | 'jsonld' | 'xml_feed' | 'aggregator_api' | 'aggregator_html' | 'rss' | 'partner_csv';
export type IdStyle = 'digits' | 'uuid' | 'req' | 'hex' | 'alnum' | 'slug' | 'sha1' | 'compound';

export interface SourceRef {
  name: string;
  class: SourceClass;
  types: readonly [SourceType, number][];
  collector: string;
  id: IdStyle;
  /** Posting URL template: {board} {id} {slug} {domain} {city}; null when the source gives none. */
  url: string | null;
  /** Application URL template ({url} is the posting URL); null when the source gives none of its own. */
  apply: string | null;
  /** Share of postings whose description is HTML rather than text. */
  html: number;
  /** Descriptions cut to their first 300-700 characters. */
  truncate: boolean;
  dropBoilerplate: number;
  dropPay: number;
  /** Share of titles written in capitals. */
  caps: number;
  /** Share of postings carrying an application check. */
  check: number;
  attribution?: { text: string; url: string; required: number };
  /** Countries the source covers; every country when absent. */
  countries?: readonly string[];
  /** Board names: the employer's slug, its domain, or the source's own feed name. */
  board: 'slug' | 'domain' | 'feed';
  /** How employment types and pay intervals are spelled: API enums, labels, or free text. */
  spelling: 'enum' | 'label' | 'loose';
}

const ats = (name: string, types: SourceRef['types'], collector: string, id: IdStyle, url: string, apply: string, html: number, spelling: SourceRef['spelling'] = 'enum'): SourceRef => ({
  name, class: 'ats', types, collector, id, url, apply, html, truncate: false, dropBoilerplate: 0.02, dropPay: 0.05, caps: 0, check: 0.9, board: 'slug', spelling,
});

const aggregator = (name: string, collector: string, id: IdStyle, url: string, text: string, home: string, required: number, types: SourceRef['types']): SourceRef => ({
  name, class: 'aggregator', types, collector, id, url, apply: `${url}&apply=1`, html: 0.15, truncate: true, dropBoilerplate: 0.5, dropPay: 0.35, caps: 0, check: 0.75,
  attribution: { text, url: home, required }, board: 'slug', spelling: 'loose',
});

export const SOURCES: readonly SourceRef[] = [
  ats('greenhouse', [['ats_api', 1]], 'gh-v3', 'digits', 'https://boards.greenhouse.io/{board}/jobs/{id}', '{url}#app', 0.95),
  ats('lever', [['ats_api', 1]], 'lever-v0', 'uuid', 'https://jobs.lever.co/{board}/{id}', '{url}/apply', 0.9),
  ats('workday', [['ats_api', 0.6], ['ats_html', 0.4]], 'wd-cxs', 'req', 'https://{board}.wd5.myworkdayjobs.com/en-US/External/job/{city}/{slug}_{id}', '{url}/apply', 0.7),
  ats('ashby', [['ats_api', 1]], 'ashby-posting-api', 'uuid', 'https://jobs.ashbyhq.com/{board}/{id}', '{url}/application', 0.9),
  ats('smartrecruiters', [['ats_api', 1]], 'sr-posting-api', 'digits', 'https://jobs.smartrecruiters.com/{board}/{id}-{slug}', '{url}?dcr_ci={board}', 0.8),
  ats('icims', [['ats_html', 0.8], ['ats_api', 0.2]], 'icims-html', 'compound', 'https://careers-{board}.icims.com/jobs/{id}/{slug}/job', '{url}?mode=apply', 0.5, 'label'),
  ats('jobvite', [['ats_html', 0.7], ['ats_api', 0.3]], 'jobvite-feed', 'alnum', 'https://jobs.jobvite.com/{board}/job/{id}', '{url}/apply', 0.6, 'label'),
  ats('bamboohr', [['ats_html', 0.6], ['ats_api', 0.4]], 'bamboo-careers', 'digits', 'https://{board}.bamboohr.com/careers/{id}', '{url}/apply', 0.8, 'label'),
  ats('taleo', [['ats_html', 0.9], ['ats_api', 0.1]], 'taleo-ftl', 'digits', 'https://{board}.taleo.net/careersection/2/jobdetail.ftl?job={id}', 'https://{board}.taleo.net/careersection/2/jobapply.ftl?job={id}', 0.3, 'label'),
  ats('successfactors', [['ats_html', 0.7], ['ats_api', 0.3]], 'sf-rmk', 'digits', 'https://career5.successfactors.com/career?company={board}&career_job_req_id={id}', '{url}&navBarLevel=JOB_SEARCH&apply=1', 0.4, 'label'),
  {
    name: 'careers-page', class: 'employer-site', types: [['career_page_html', 0.55], ['jsonld', 0.45]], collector: 'site-crawler', id: 'slug',
    url: 'https://{domain}/careers/{slug}-{id}', apply: null, html: 0.5, truncate: false, dropBoilerplate: 0.1, dropPay: 0.2, caps: 0, check: 0.85, board: 'domain', spelling: 'label',
  },
  aggregator('indeed', 'indeed-publisher', 'hex', 'https://www.indeed.com/viewjob?jk={id}', 'Jobs via Indeed', 'https://www.indeed.com', 0.95, [['aggregator_api', 0.7], ['aggregator_html', 0.3]]),
  aggregator('linkedin', 'li-jobs', 'digits', 'https://www.linkedin.com/jobs/view/{id}?trk=feed', 'Jobs on LinkedIn', 'https://www.linkedin.com/jobs', 0.9, [['aggregator_api', 0.8], ['aggregator_html', 0.2]]),
  aggregator('ziprecruiter', 'zr-partner', 'alnum', 'https://www.ziprecruiter.com/c/{board}/Job/{slug}?jid={id}', 'Jobs by ZipRecruiter', 'https://www.ziprecruiter.com', 0.85, [['aggregator_api', 1]]),
  aggregator('glassdoor', 'gd-html', 'digits', 'https://www.glassdoor.com/job-listing/{slug}-JV_{id}.htm?src=gd', 'Jobs via Glassdoor', 'https://www.glassdoor.com', 0.8, [['aggregator_html', 1]]),
  aggregator('simplyhired', 'sh-feed', 'alnum', 'https://www.simplyhired.com/job/{id}?src=sh', 'Jobs by SimplyHired', 'https://www.simplyhired.com', 0.75, [['aggregator_html', 0.6], ['rss', 0.4]]),
  ...(['randstad', 'adecco', 'roberthalf'] as const).map((name): SourceRef => ({
    name, class: 'staffing-network', types: [['xml_feed', 0.7], ['rss', 0.3]], collector: `${name}-feed`, id: 'digits',
    url: `https://www.${name === 'roberthalf' ? 'roberthalf.com/us/en' : `${name}usa.com`}/jobs/{slug}/{id}`, apply: '{url}/apply', html: 0.3, truncate: false,
    dropBoilerplate: 0.6, dropPay: 0.25, caps: 0, check: 0.7, board: 'slug', spelling: 'label',
  })),
  {
    name: 'usajobs', class: 'government-exchange', types: [['aggregator_api', 1]], collector: 'usajobs-search-api', id: 'digits', url: 'https://www.usajobs.gov/job/{id}',
    apply: 'https://www.usajobs.gov/job/{id}/apply', html: 0.2, truncate: false, dropBoilerplate: 0.3, dropPay: 0.02, caps: 0.3, check: 0.8, countries: ['US'], board: 'slug', spelling: 'enum',
  },
  {
    name: 'jobbank-canada', class: 'government-exchange', types: [['xml_feed', 1]], collector: 'jobbank-xml', id: 'digits', url: 'https://www.jobbank.gc.ca/jobsearch/jobposting/{id}',
    apply: null, html: 0, truncate: false, dropBoilerplate: 0.5, dropPay: 0.05, caps: 0, check: 0.7, countries: ['CA'], board: 'slug', spelling: 'label',
  },
  {
    name: 'findajob-uk', class: 'government-exchange', types: [['rss', 0.6], ['xml_feed', 0.4]], collector: 'findajob-rss', id: 'digits', url: 'https://findajob.dwp.gov.uk/details/{id}',
    apply: null, html: 0, truncate: false, dropBoilerplate: 0.5, dropPay: 0.2, caps: 0.5, check: 0.7, countries: ['GB'], board: 'slug', spelling: 'loose',
  },
  {
    name: 'bundesagentur', class: 'government-exchange', types: [['xml_feed', 1]], collector: 'ba-jobsuche', id: 'compound', url: 'https://www.arbeitsagentur.de/jobsuche/jobdetail/{id}',
    apply: null, html: 0.1, truncate: false, dropBoilerplate: 0.4, dropPay: 0.3, caps: 0, check: 0.7, countries: ['DE'], board: 'slug', spelling: 'label',
  },
  {
    name: 'commoncrawl-jobs', class: 'dataset', types: [['jsonld', 1]], collector: 'cc-jsonld-extract', id: 'sha1', url: 'https://{domain}/careers/{slug}',
    apply: null, html: 0.4, truncate: false, dropBoilerplate: 0.2, dropPay: 0.3, caps: 0, check: 0.2, board: 'feed', spelling: 'enum',
  },
  {
    name: 'partner-feed', class: 'purchased', types: [['partner_csv', 1]], collector: 'partner-sftp-csv', id: 'digits', url: null,
    apply: null, html: 0, truncate: false, dropBoilerplate: 0.4, dropPay: 0.35, caps: 0.1, check: 0.4, board: 'feed', spelling: 'loose',
  },
  {
    name: 'jobdata-api', class: 'third-party-api', types: [['aggregator_api', 1]], collector: 'jobdata-v1', id: 'digits', url: 'https://jobdataapi.com/jobs/{id}/',
    apply: null, html: 0.5, truncate: false, dropBoilerplate: 0.3, dropPay: 0.3, caps: 0, check: 0.6,
    attribution: { text: 'Data provided by jobdata API', url: 'https://jobdataapi.com', required: 0.5 }, board: 'slug', spelling: 'enum',
  },
  {
    name: 'misc-feed', class: 'unknown', types: [['rss', 0.6], ['xml_feed', 0.4]], collector: 'misc-rss', id: 'hex', url: 'https://jobs-feed.example.net/item/{id}',
    apply: null, html: 0.3, truncate: true, dropBoilerplate: 0.6, dropPay: 0.5, caps: 0.15, check: 0.3, board: 'feed', spelling: 'loose',
  },
];

export const SOURCE_INDEX: ReadonlyMap<string, number> = new Map(SOURCES.map((s, i) => [s.name, i]));

export function sourceIndex(name: string): number {
  const index = SOURCE_INDEX.get(name);
  if (index === undefined) throw new Error(`unknown source ${name}`);
  return index;
}

export const ATS_SOURCES = SOURCES.filter((s) => s.class === 'ats').map((s) => s.name);
