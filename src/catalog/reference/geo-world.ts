// Countries, ISO 3166-2 subdivisions and cities outside the US, with the names and spellings people write.

export interface CountryRef {
  code: string;
  name: string;
  aliases: string[];
  currency: string;
  /** Salary level relative to US dollars in the local currency's numbers. */
  payFactor: number;
  /** Share of openings outside the US that are in this country. */
  weight: number;
}

export const COUNTRIES: readonly CountryRef[] = [
  { code: 'US', name: 'United States', aliases: ['USA', 'U.S.', 'U.S.A.', 'United States of America', 'America'], currency: 'USD', payFactor: 1, weight: 0 },
  { code: 'CA', name: 'Canada', aliases: [], currency: 'CAD', payFactor: 0.95, weight: 0.26 },
  { code: 'GB', name: 'United Kingdom', aliases: ['UK', 'U.K.', 'Great Britain', 'Britain'], currency: 'GBP', payFactor: 0.55, weight: 0.22 },
  { code: 'DE', name: 'Germany', aliases: ['Deutschland'], currency: 'EUR', payFactor: 0.62, weight: 0.14 },
  { code: 'IN', name: 'India', aliases: ['Bharat'], currency: 'INR', payFactor: 12, weight: 0.17 },
  { code: 'AU', name: 'Australia', aliases: [], currency: 'AUD', payFactor: 1.1, weight: 0.06 },
  { code: 'FR', name: 'France', aliases: [], currency: 'EUR', payFactor: 0.52, weight: 0.04 },
  { code: 'NL', name: 'Netherlands', aliases: ['The Netherlands', 'Holland', 'Nederland'], currency: 'EUR', payFactor: 0.6, weight: 0.04 },
  { code: 'IE', name: 'Ireland', aliases: ['Republic of Ireland', 'Éire'], currency: 'EUR', payFactor: 0.65, weight: 0.03 },
  { code: 'BR', name: 'Brazil', aliases: ['Brasil'], currency: 'BRL', payFactor: 1.4, weight: 0.025 },
  { code: 'CH', name: 'Switzerland', aliases: ['Schweiz', 'Suisse', 'Svizzera'], currency: 'CHF', payFactor: 1.05, weight: 0.015 },
];

/** Country code → "CODE:Name:alias;alias" subdivisions (ISO 3166-2 codes without the country prefix). */
const SUBDIVISIONS: Readonly<Record<string, string>> = {
  CA: 'ON:Ontario|QC:Quebec:Québec|BC:British Columbia|AB:Alberta|MB:Manitoba|SK:Saskatchewan|NS:Nova Scotia|NB:New Brunswick|NL:Newfoundland and Labrador:Newfoundland|PE:Prince Edward Island',
  GB: 'ENG:England|SCT:Scotland|WLS:Wales|NIR:Northern Ireland',
  DE: 'BE:Berlin|HH:Hamburg|BY:Bavaria:Bayern|NW:North Rhine-Westphalia:Nordrhein-Westfalen;NRW|HE:Hesse:Hessen|BW:Baden-Württemberg:Baden-Wurttemberg;Baden-Wuerttemberg|SN:Saxony:Sachsen|NI:Lower Saxony:Niedersachsen|HB:Bremen',
  IN: 'KA:Karnataka|MH:Maharashtra|DL:Delhi:NCT of Delhi|TG:Telangana:TS|TN:Tamil Nadu|WB:West Bengal|HR:Haryana|UP:Uttar Pradesh|GJ:Gujarat|RJ:Rajasthan|KL:Kerala|CH:Chandigarh',
  AU: 'NSW:New South Wales|VIC:Victoria|QLD:Queensland|WA:Western Australia|SA:South Australia|ACT:Australian Capital Territory|TAS:Tasmania|NT:Northern Territory',
  FR: "IDF:Île-de-France:Ile-de-France|ARA:Auvergne-Rhône-Alpes:Auvergne-Rhone-Alpes|PAC:Provence-Alpes-Côte d'Azur:Provence-Alpes-Cote d'Azur|OCC:Occitanie|NAQ:Nouvelle-Aquitaine|HDF:Hauts-de-France|PDL:Pays de la Loire|GES:Grand Est",
  NL: 'NH:North Holland:Noord-Holland|ZH:South Holland:Zuid-Holland|UT:Utrecht|NB:North Brabant:Noord-Brabant|GR:Groningen',
  IE: 'D:Dublin:County Dublin|CO:Cork:County Cork|G:Galway:County Galway|LK:Limerick:County Limerick',
  BR: 'SP:São Paulo:Sao Paulo|RJ:Rio de Janeiro|MG:Minas Gerais|PR:Paraná:Parana|RS:Rio Grande do Sul|DF:Distrito Federal|PE:Pernambuco|SC:Santa Catarina',
  CH: 'ZH:Zürich:Zurich;Zuerich|GE:Geneva:Genève;Geneve;Genf|BS:Basel-Stadt|VD:Vaud|BE:Bern:Berne',
};

export interface SubdivisionRef {
  country: string;
  code: string;
  name: string;
  aliases: string[];
}

export const SUBDIVISION_LIST: readonly SubdivisionRef[] = Object.entries(SUBDIVISIONS).flatMap(([country, text]) =>
  text.split('|').map((entry) => {
    const [code, name, aliases] = entry.split(':') as [string, string, string | undefined];
    return { country, code, name, aliases: aliases ? aliases.split(';') : [] };
  }),
);

export interface WorldCityRef {
  name: string;
  country: string;
  state: string;
  weight: number;
  aliases: string[];
  /** The name as the country's own job boards write it, when it differs. */
  local?: string;
}

/** "Name:SUB:weight:alias;alias:local" per city, grouped by country. */
const CITIES: Readonly<Record<string, string>> = {
  CA: 'Toronto:ON:6|Mississauga:ON:1.2|Ottawa:ON:1.4|Hamilton:ON:0.8|Waterloo:ON:0.5|Kitchener:ON:0.5|London:ON:0.5|Brampton:ON:0.7|Markham:ON:0.5|' +
    'Montréal:QC:4:Montreal|Québec City:QC:0.8:Quebec City;Ville de Québec|Laval:QC:0.4|Vancouver:BC:2.6|Burnaby:BC:0.5|Surrey:BC:0.5|Victoria:BC:0.4|' +
    'Calgary:AB:1.5|Edmonton:AB:1.4|Winnipeg:MB:0.8|Saskatoon:SK:0.3|Regina:SK:0.25|Halifax:NS:0.45|' +
    "St. John's:NL:0.2:Saint John's|Fredericton:NB:0.1|Moncton:NB:0.15|Charlottetown:PE:0.08",
  GB: 'London:ENG:9:Greater London;City of London|Manchester:ENG:2.8|Birmingham:ENG:2.6|Leeds:ENG:1.8|Liverpool:ENG:1.4|Bristol:ENG:1.1|Sheffield:ENG:0.9|' +
    'Newcastle upon Tyne:ENG:0.8:Newcastle|Nottingham:ENG:0.8|Leicester:ENG:0.6|Cambridge:ENG:0.5|Oxford:ENG:0.4|Reading:ENG:0.4|Milton Keynes:ENG:0.4|' +
    'Brighton:ENG:0.4:Brighton and Hove|Southampton:ENG:0.5|Edinburgh:SCT:1|Glasgow:SCT:1.2|Aberdeen:SCT:0.3|Cardiff:WLS:0.6|Swansea:WLS:0.3|Belfast:NIR:0.6',
  DE: 'Berlin:BE:3.6|Hamburg:HH:1.9|Munich:BY:1.5:Muenchen;Munchen:München|Cologne:NW:1.1:Koeln;Koln:Köln|Frankfurt:HE:0.8:Frankfurt am Main;Frankfurt a.M.|' +
    'Stuttgart:BW:0.6|Düsseldorf:NW:0.6:Dusseldorf;Duesseldorf|Dortmund:NW:0.6|Essen:NW:0.55|Leipzig:SN:0.6|Dresden:SN:0.55|' +
    'Hanover:NI:0.5:Hannover:Hannover|Nuremberg:BY:0.5:Nurnberg;Nuernberg:Nürnberg|Bremen:HB:0.55|Karlsruhe:BW:0.3|Mannheim:BW:0.3|Bonn:NW:0.3',
  IN: 'Bengaluru:KA:8.4:Bangalore|Mumbai:MH:12:Bombay|New Delhi:DL:3|Delhi:DL:5|Hyderabad:TG:6.8|Chennai:TN:4.6:Madras|Pune:MH:3.1|Kolkata:WB:4.5:Calcutta|' +
    'Gurugram:HR:1.2:Gurgaon|Noida:UP:0.8|Ahmedabad:GJ:2.2|Jaipur:RJ:1.2|Kochi:KL:0.6:Cochin|Coimbatore:TN:0.6|Chandigarh:CH:0.4',
  AU: 'Sydney:NSW:5.2|Melbourne:VIC:5|Brisbane:QLD:2.5|Perth:WA:2.1|Adelaide:SA:1.4|Canberra:ACT:0.45|Hobart:TAS:0.25|Gold Coast:QLD:0.7|Darwin:NT:0.15',
  FR: 'Paris:IDF:6|Lyon:ARA:1.5|Marseille:PAC:1.1|Toulouse:OCC:1|Bordeaux:NAQ:0.8|Lille:HDF:0.8|Nantes:PDL:0.6|Nice:PAC:0.5|Strasbourg:GES:0.5|Montpellier:OCC:0.5',
  NL: 'Amsterdam:NH:2|Rotterdam:ZH:1.2|The Hague:ZH:0.9:Den Haag;s-Gravenhage|Utrecht:UT:0.7|Eindhoven:NB:0.5|Groningen:GR:0.3',
  IE: 'Dublin:D:3|Cork:CO:0.6|Galway:G:0.3|Limerick:LK:0.25',
  BR: 'São Paulo:SP:6:Sao Paulo|Rio de Janeiro:RJ:3|Belo Horizonte:MG:1.2|Curitiba:PR:1|Porto Alegre:RS:0.9|Brasília:DF:1:Brasilia|Recife:PE:0.7|Florianópolis:SC:0.5:Florianopolis',
  CH: 'Zürich:ZH:1.5:Zurich;Zuerich|Geneva:GE:0.8:Genève;Geneve;Genf|Basel:BS:0.5|Lausanne:VD:0.4|Bern:BE:0.4:Berne',
};

export const WORLD_CITIES: readonly WorldCityRef[] = Object.entries(CITIES).flatMap(([country, text]) =>
  text.split('|').map((entry) => {
    const [name, state, weight, aliases, local] = entry.split(':') as [string, string, string, string | undefined, string | undefined];
    return { name, country, state, weight: Number(weight), aliases: aliases ? aliases.split(';') : [], ...(local ? { local } : {}) };
  }),
);
