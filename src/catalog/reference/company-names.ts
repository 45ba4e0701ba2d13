// Parts of employer names ("Northwind" + "Logistics", "Blue" + "Harbor" + "Health") and the legal suffixes of each country.

function words(text: string): readonly string[] {
  return text.trim().split(/\s+/).map((w) => w.replace(/_/g, ' '));
}

export const NAME_FIRST = words(`
  Northwind Blue Cedar Summit Harbor Granite Silver Golden Evergreen Pioneer Liberty Heritage Keystone Atlas
  Beacon Cornerstone Crescent Meridian Horizon Sterling Redwood Ironwood Oakridge Pinecrest Riverbend Lakeshore
  Bayside Highland Prairie Frontier Coastal Sunrise Sunset Northstar Polaris Orion Apex Vertex Vantage Zenith
  Paragon Praxis Catalyst Quantum Nimbus Cirrus Aurora Borealis Cascade Glacier Canyon Mesa Sierra Alpine Tundra
  Willow Maple Birch Aspen Juniper Magnolia Sequoia Cypress Laurel Hawthorne Linden Sycamore Elm Hickory Chestnut
  Falcon Eagle Osprey Heron Raven Kestrel Condor Sparrow Cardinal Bluebird Fox Badger Otter Bison Mustang Stallion
  Copper Cobalt Indigo Crimson Scarlet Amber Jade Onyx Ivory Sapphire Emerald Ruby Garnet Opal Slate Graphite
  Anchor Compass Lantern Harvest Orchard Meadow Brookside Fairview Westfield Eastgate Southport Northgate Kingsley
  Ashford Brighton Carlisle Dorset Easton Fairmont Grafton Hampton Kensington Langley Marlow Newbury Oxford Preston
  Quincy Rutherford Stratford Thornton Wellington Windsor Yorkshire Avalon Camden Delmar Everett Franklin Garrison
  Hamilton Jefferson Lincoln Madison Monroe Jackson Adams Calloway Whitaker Harlow Sheridan Montgomery Beaumont
  True Clear Bright Swift Bold Prime First Grand Noble Loyal Steady Open Trusted Unity Harmony Kindred Haven
  Tidewater Bluewater Clearwater Stonebridge Ridgeview Hillcrest Greenfield Springdale Riverside Lakeview Parkway
  Twin_Rivers Three_Oaks Seven_Hills Blue_Ridge Red_Rock Green_Valley White_Pine Black_Hawk Silver_Lake Gold_Coast
  Elevate Amplify Ignite Kinetic Vector Tensor Lumen Lucid Verity Veritas Sentinel Bastion Citadel Forge Foundry
  Tandem Keel Rudder Mast Pier Wharf Quay Jetty Inlet Estuary Delta Fjord Atoll Lagoon Reef Shoal
  Marigold Lotus Orchid Saffron Sage Thyme Basil Clover Fern Ivy Moss Heather Thistle Bramble Hazel Rowan
`);

export const NAME_SECOND = words(`
  Harbor Ridge Peak Valley Creek Point Bridge Hill Park Field Grove Springs Rock Stone Lake River Bay Shore
  Crest Gate Haven Point Brook Falls Hollow Meadow Glen Forest Pines Oaks Mountain Canyon Trail Landing Crossing
  Bluff Cove Harbour Heights Terrace Square Works Row Commons Vista Horizon Line Coast Isle Island Plains Ranch
`);

export const SURNAMES = words(`
  Anderson Bennett Carter Dalton Ellison Fletcher Gallagher Harrington Iverson Jennings Keller Lawson Mitchell
  Nolan Ortega Patterson Quinlan Ramirez Sullivan Thornberry Underwood Vaughn Whitman Young Zimmerman Abbott Barrett
  Caldwell Donovan Ferguson Garcia Hughes Ingram Jensen Kowalski Lindqvist Morales Nguyen O'Brien Petrov Rossi
  Schneider Tanaka Varga Weber Novak Fischer Moreau Dubois Kapoor Sharma Iyer Okafor Mensah Haddad Cohen Park
  Larsen Brennan McAllister Delgado Castillo Romero Hoffman Bauer Becker Richter Lambert Girard Fontaine Rahman
`);

export const SURNAME_ENDINGS: readonly string[] = ['& Sons', '& Daughters', 'Brothers', '& Associates', '& Partners', 'Family', '& Co.'];

/** Country → legal suffixes with their relative weights; "," before the suffix is decided per company. */
export const LEGAL_SUFFIXES: Readonly<Record<string, readonly [string, number][]>> = {
  US: [['Inc.', 5], ['LLC', 4], ['Corp.', 1.5], ['Co.', 0.5], ['Corporation', 0.8], ['Incorporated', 0.3], ['', 2]],
  CA: [['Inc.', 4], ['Ltd.', 3], ['Corp.', 1], ['', 1.5]],
  GB: [['Ltd', 6], ['Limited', 2], ['plc', 1], ['LLP', 0.5], ['', 1]],
  DE: [['GmbH', 6], ['AG', 2], ['GmbH & Co. KG', 1.5], ['SE', 0.3]],
  IN: [['Pvt Ltd', 5], ['Private Limited', 2], ['Limited', 2], ['LLP', 0.5]],
  AU: [['Pty Ltd', 6], ['Limited', 1.5], ['', 1]],
  FR: [['SA', 3], ['SAS', 4], ['SARL', 1.5]],
  NL: [['B.V.', 6], ['N.V.', 1]],
  IE: [['Ltd', 4], ['Limited', 2], ['DAC', 1], ['plc', 0.5]],
  BR: [['Ltda.', 5], ['S.A.', 2]],
  CH: [['AG', 5], ['SA', 2], ['GmbH', 2]],
};

/** The long and short spellings real copies swap: "Incorporated" ↔ "Inc.", "Corporation" ↔ "Corp". */
export const SUFFIX_VARIANTS: Readonly<Record<string, readonly string[]>> = {
  'Inc.': ['Inc', 'Inc.', 'Incorporated'],
  Incorporated: ['Inc.', 'Inc'],
  'Corp.': ['Corp', 'Corporation'],
  Corporation: ['Corp.', 'Corp'],
  'Co.': ['Co', 'Company'],
  LLC: ['L.L.C.', 'Llc'],
  Ltd: ['Ltd.', 'Limited'],
  'Ltd.': ['Ltd', 'Limited'],
  Limited: ['Ltd', 'Ltd.'],
  'Pvt Ltd': ['Pvt. Ltd.', 'Private Limited'],
  'Private Limited': ['Pvt Ltd', 'Pvt. Ltd.'],
  'Pty Ltd': ['Pty. Ltd.', 'Pty Limited'],
  GmbH: ['Gmbh'],
  'B.V.': ['BV'],
  'Ltda.': ['Ltda'],
};
